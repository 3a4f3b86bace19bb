import { LlmError } from '../errors.js';

/** Which API an endpoint speaks: Chat Completions or Responses. */
export type LlmApi = 'chat' | 'responses';

/** A message of a tool-calling conversation, in Chat Completions' terms. */
export type ChatMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; toolCalls?: ToolCall[] }
  | { role: 'tool'; toolCallId: string; content: string };

/** A function the model asked to run; `arguments` is the model's JSON text, parsed by the caller. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** A function the model may call: a name, what it does, and a JSON Schema of its arguments. */
export interface ToolDefinition {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** Tokens an answer cost, as the endpoint reported them (0 when it reported none). */
export interface LlmUsage {
  prompt: number;
  completion: number;
}

export interface ChatAnswer {
  content: string | null;
  toolCalls: ToolCall[];
  usage: LlmUsage;
}

/** A tool-calling request in the wire format of the endpoint's API. */
export function toolChatBody(
  api: LlmApi,
  model: string,
  messages: ChatMessage[],
  tools: ToolDefinition[],
): Record<string, unknown> {
  if (api === 'chat') {
    return {
      model,
      temperature: 0,
      messages: messages.map((m) => {
        if (m.role === 'tool') return { role: 'tool', tool_call_id: m.toolCallId, content: m.content };
        if (m.role === 'assistant') {
          return {
            role: 'assistant',
            content: m.content,
            ...(m.toolCalls?.length
              ? {
                  tool_calls: m.toolCalls.map((c) => ({
                    id: c.id,
                    type: 'function',
                    function: { name: c.name, arguments: c.arguments },
                  })),
                }
              : {}),
          };
        }
        return m;
      }),
      ...(tools.length > 0
        ? { tools: tools.map((t) => ({ type: 'function', function: t })), tool_choice: 'auto' }
        : {}),
    };
  }
  const instructions = messages
    .filter((m) => m.role === 'system')
    .map((m) => m.content)
    .join('\n\n');
  const input: unknown[] = [];
  for (const m of messages) {
    if (m.role === 'user') input.push({ role: 'user', content: m.content });
    else if (m.role === 'tool')
      input.push({ type: 'function_call_output', call_id: m.toolCallId, output: m.content });
    else if (m.role === 'assistant') {
      if (m.content) input.push({ role: 'assistant', content: m.content });
      for (const c of m.toolCalls ?? [])
        input.push({ type: 'function_call', call_id: c.id, name: c.name, arguments: c.arguments });
    }
  }
  return {
    model,
    temperature: 0,
    instructions,
    input,
    ...(tools.length > 0
      ? { tools: tools.map((t) => ({ type: 'function', ...t })), tool_choice: 'auto' }
      : {}),
  };
}

/** The usage block of either API. */
export function usageOf(body: unknown): LlmUsage {
  const usage = (body as { usage?: Record<string, unknown> } | null)?.usage ?? {};
  const n = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0);
  return {
    prompt: n(usage.prompt_tokens ?? usage.input_tokens),
    completion: n(usage.completion_tokens ?? usage.output_tokens),
  };
}

/** The text and the tool calls of an answer of either API. */
export function toolChatAnswer(api: LlmApi, body: unknown): ChatAnswer {
  const usage = usageOf(body);
  if (api === 'chat') {
    const message = (
      body as {
        choices?: {
          message?: {
            content?: unknown;
            tool_calls?: { id?: unknown; function?: { name?: unknown; arguments?: unknown } }[];
          };
        }[];
      }
    ).choices?.[0]?.message;
    if (!message) throw new LlmError('The LLM answer has no message');
    const toolCalls = (message.tool_calls ?? []).flatMap((c, i) =>
      typeof c.function?.name === 'string'
        ? [
            {
              id: typeof c.id === 'string' ? c.id : `call_${i}`,
              name: c.function.name,
              arguments: typeof c.function.arguments === 'string' ? c.function.arguments : '{}',
            },
          ]
        : [],
    );
    return { content: typeof message.content === 'string' ? message.content : null, toolCalls, usage };
  }
  const output =
    (
      body as {
        output?: {
          type?: string;
          call_id?: unknown;
          name?: unknown;
          arguments?: unknown;
          content?: { type?: string; text?: unknown }[];
        }[];
      }
    ).output ?? [];
  const toolCalls: ToolCall[] = [];
  const text: string[] = [];
  for (const [i, item] of output.entries()) {
    if (item.type === 'function_call' && typeof item.name === 'string') {
      toolCalls.push({
        id: typeof item.call_id === 'string' ? item.call_id : `call_${i}`,
        name: item.name,
        arguments: typeof item.arguments === 'string' ? item.arguments : '{}',
      });
    } else if (item.type === 'message') {
      for (const part of item.content ?? [])
        if (part.type === 'output_text' && typeof part.text === 'string') text.push(part.text);
    }
  }
  return { content: text.length > 0 ? text.join('') : null, toolCalls, usage };
}
