import assert from 'node:assert/strict';
import type Firecrawl from '@mendable/firecrawl-js';
import type { LlmRequest, LlmStub, StubReply } from '../fixtures/llm-stub.js';

/** The messages and tool names of a chat request the agent sent to the LLM stub. */
export const messagesOf = (req: LlmRequest) =>
  (req.body.messages ?? []) as { role: string; content: string | null; tool_calls?: unknown[] }[];
export const toolNamesOf = (req: LlmRequest): string[] =>
  ((req.body.tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name);
/** Tool answers the conversation holds so far: which step of a script the run is at. */
export const toolAnswers = (req: LlmRequest): number =>
  messagesOf(req).filter((m) => m.role === 'tool').length;
/** Requests of the agent's loop (the extract tool's own calls have no tools). */
export const agentTurns = (requests: LlmRequest[]): LlmRequest[] => requests.filter((r) => r.body.tools);

export const FACTS = { founder: 'Jane Doe', founded: 1999, city: 'Lisbon' };

export const FACTS_SCHEMA = {
  type: 'object',
  properties: { founder: { type: 'string' }, founded: { type: 'integer' }, city: { type: 'string' } },
  required: ['founder', 'founded', 'city'],
};

/**
 * A research run scripted step by step: search the stub provider, scrape the two pages it found, fill the
 * schema from their text. Requests that are not the agent's loop (none here) answer `{}`.
 */
export function researchScript(site: string) {
  return (req: LlmRequest): StubReply => {
    switch (toolAnswers(req)) {
      case 0:
        return { toolCalls: [{ name: 'search', arguments: { query: 'Acme Rockets founder headquarters' } }] };
      case 1:
        return {
          toolCalls: [
            { name: 'scrape', arguments: { url: `${site}/founder` } },
            { name: 'scrape', arguments: { url: `${site}/hq` } },
          ],
        };
      default:
        return {
          toolCalls: [
            {
              name: 'final_answer',
              arguments: {
                data: FACTS,
                sources: [{ field: 'founder', urls: [`${site}/founder`, 'http://never-read.test/'] }],
              },
            },
          ],
        };
    }
  };
}

/**
 * A chat follow-up on a thread whose first run found FACTS: it answers from the thread's history, and says it does
 * not know when the history is not in the conversation.
 */
const followUpFromHistory = (req: LlmRequest): StubReply =>
  messagesOf(req).some((m) => m.role === 'assistant' && /Jane Doe/.test(m.content ?? ''))
    ? { toolCalls: [{ name: 'final_answer', arguments: { message: 'Jane Doe founded it in 1999.' } }] }
    : { text: 'I do not know.' };

type AgentStatus = Awaited<ReturnType<Firecrawl['getAgentStatus']>>;

/**
 * A research run on `site` (asserted completed), then a chat follow-up on its thread: both runs as started,
 * and the follow-up as it ended (`ended` waits for a run's end).
 */
export async function researchThenFollowUp(
  fc: Firecrawl,
  llm: Pick<LlmStub, 'reply'>,
  site: string,
  ended: (id: string) => Promise<AgentStatus>,
) {
  llm.reply = researchScript(site);
  const first = await fc.startAgent({ prompt: 'Who founded Acme Rockets?', schema: FACTS_SCHEMA });
  assert.equal((await ended(first.id)).status, 'completed');
  llm.reply = followUpFromHistory;
  const second = await fc.startAgent({ prompt: 'In one sentence?', threadId: first.threadId, mode: 'chat' });
  return { first, second, answer: await ended(second.id) };
}
