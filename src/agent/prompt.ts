import type { ChatMessage } from '../extract/llm-wire.js';
import type { AgentRequest } from './request.js';
import { HISTORY_RESULT_CHARS, TURNS_BY_EFFORT } from './request.js';

const clip = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max)} […]` : text);

/** The system instructions and the caller's task (with the thread's earlier turns) that open a run. */
export function openingMessages(request: AgentRequest, browser: boolean): ChatMessage[] {
  const turns = TURNS_BY_EFFORT[request.effort ?? 'medium'];
  const rules = [
    'You are a web research agent. Use the tools to find the answer on real pages, then call final_answer.',
    'Only state what the pages you read say; never invent values. Prefer primary sources.',
    `You have ${turns} steps and ${request.maxCredits} credits (one per page read); every tool call of a step runs, so batch independent calls.`,
    request.strict
      ? `Read only these pages: ${request.urls.join(', ')}.`
      : 'Search for pages when you do not know where the answer is; map a site to find its pages.',
    browser ? 'Use browser only for pages whose content needs clicks, typing or scrolling.' : '',
    request.mode === 'chat'
      ? 'Answer in final_answer.message, briefly; add data only when the task asks for structured data.'
      : request.schema
        ? 'final_answer.data must follow the JSON Schema given by the task.'
        : 'final_answer.data is a JSON object holding the answer.',
    'In final_answer.sources, list for each top-level field of data the URLs it was read on.',
  ].filter(Boolean);
  const messages: ChatMessage[] = [{ role: 'system', content: rules.join('\n') }];
  for (const turn of request.history) {
    messages.push({ role: 'user', content: turn.prompt });
    const answer = [
      turn.data !== null && turn.data !== undefined
        ? `Result: ${clip(JSON.stringify(turn.data), HISTORY_RESULT_CHARS)}`
        : '',
      turn.message ? clip(turn.message, HISTORY_RESULT_CHARS) : '',
    ]
      .filter(Boolean)
      .join('\n');
    messages.push({ role: 'assistant', content: answer || '(no result)' });
  }
  const task = [
    request.prompt,
    request.urls.length > 0 ? `Start from: ${request.urls.join(', ')}` : '',
    request.schema ? `JSON Schema of the result:\n${JSON.stringify(request.schema)}` : '',
    request.history.length > 0 ? 'This follows up the conversation above: build on its result.' : '',
  ].filter(Boolean);
  messages.push({ role: 'user', content: task.join('\n\n') });
  return messages;
}
