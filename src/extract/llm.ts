import { Agent, request } from 'undici';
import { AppError, BadRequestError, LlmError, TargetUnreachableError } from '../errors.js';
import type { Deadline } from '../lib/deadline.js';
import { assertTargetAllowed, guardedLookup } from '../lib/ssrf-guard.js';
import type { GuardOptions } from '../lib/ssrf-guard.js';
import type { ProxyRoute } from '../lib/proxy-route.js';
import { toolChatAnswer, toolChatBody, usageOf } from './llm-wire.js';
import type { ChatAnswer, ChatMessage, LlmApi, LlmUsage, ToolDefinition } from './llm-wire.js';

export interface LlmEndpoint {
  baseUrl: string;
  model: string;
  apiKey?: string;
}

export interface LlmPrompt {
  /** System-level instructions. */
  instructions: string;
  /** The user message: task and page content. */
  input: string;
  /** JSON Schema the answer must follow (sent as structured-output format when given). */
  schema?: Record<string, unknown> | boolean;
  /** What the call is for, as the token metrics label it (`format`, `extract`, `agent`...). */
  purpose?: string;
}

/** Hears the tokens of every answer and the endpoint that answered: the metrics, a tenant's usage of the day. */
export type UsageListener = (purpose: string, usage: LlmUsage, endpoint: LlmEndpoint) => void;

/** Asked before every call; throws to refuse it (a tenant past its LLM tokens of the day). */
export type CallAdmission = (endpoint: LlmEndpoint) => Promise<void>;

export type { LlmApi };

/**
 * Request-level checks of the caller's LLM fields (extract, llms.txt): a usable `llmBaseUrl`, and no key
 * without an endpoint to send it to (it would be silently ignored).
 */
export function checkLlmFields(body: { llmBaseUrl?: string; llmApiKey?: string }): void {
  if (body.llmBaseUrl !== undefined) resolveEndpoint(body.llmBaseUrl);
  else if (body.llmApiKey !== undefined) throw new BadRequestError('llmApiKey needs llmBaseUrl');
}

/**
 * Where to send a prompt: a URL ending in /responses uses the Responses API, one ending in
 * /chat/completions the Chat Completions API; a base URL (with or without /v1) gets /v1/chat/completions.
 */
export function resolveEndpoint(baseUrl: string): { url: URL; api: LlmApi } {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new BadRequestError(
      `llmBaseUrl must be an absolute http or https URL, got '${baseUrl.slice(0, 200)}'`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new BadRequestError(`llmBaseUrl scheme '${url.protocol}' is not supported`);
  }
  const path = url.pathname.replace(/\/+$/, '');
  if (/\/responses$/.test(path)) return { url, api: 'responses' };
  if (/\/chat\/completions$/.test(path)) return { url, api: 'chat' };
  const base = /\/v\d+$/.test(path) ? path : `${path}/v1`;
  url.pathname = `${base}/chat/completions`;
  return { url, api: 'chat' };
}

/** Pulls the JSON object out of a model's answer: code fences and chatter around it are dropped. */
export function parseJsonAnswer(text: string): unknown {
  const trimmed = text
    .trim()
    .replace(/^```(?:json)?\s*/i, '')
    .replace(/\s*```$/, '');
  try {
    return JSON.parse(trimmed);
  } catch {
    const start = trimmed.search(/[{[]/);
    const end = Math.max(trimmed.lastIndexOf('}'), trimmed.lastIndexOf(']'));
    if (start >= 0 && end > start) {
      try {
        return JSON.parse(trimmed.slice(start, end + 1));
      } catch {
        // fall through to the error below
      }
    }
    throw new LlmError('The LLM answer is not valid JSON');
  }
}

function chatBody(model: string, prompt: LlmPrompt): Record<string, unknown> {
  return {
    model,
    temperature: 0,
    messages: [
      { role: 'system', content: prompt.instructions },
      { role: 'user', content: prompt.input },
    ],
    response_format:
      prompt.schema !== undefined && typeof prompt.schema === 'object'
        ? { type: 'json_schema', json_schema: { name: 'extraction', schema: prompt.schema, strict: false } }
        : { type: 'json_object' },
  };
}

function responsesBody(model: string, prompt: LlmPrompt): Record<string, unknown> {
  return {
    model,
    temperature: 0,
    instructions: prompt.instructions,
    input: prompt.input,
    text: {
      format:
        prompt.schema !== undefined && typeof prompt.schema === 'object'
          ? { type: 'json_schema', name: 'extraction', schema: prompt.schema, strict: false }
          : { type: 'json_object' },
    },
  };
}

function answerText(api: LlmApi, body: unknown): string {
  const json = body as {
    choices?: { message?: { content?: unknown } }[];
    output_text?: unknown;
    output?: { type?: string; content?: { type?: string; text?: unknown }[] }[];
  };
  if (api === 'chat') {
    const content = json.choices?.[0]?.message?.content;
    if (typeof content === 'string') return content;
  } else {
    if (typeof json.output_text === 'string') return json.output_text;
    const parts = (json.output ?? [])
      .filter((item) => item.type === 'message')
      .flatMap((item) => item.content ?? [])
      .filter((part) => part.type === 'output_text' && typeof part.text === 'string')
      .map((part) => part.text as string);
    if (parts.length > 0) return parts.join('');
  }
  throw new LlmError('The LLM answer has no text content');
}

/**
 * An OpenAI-compatible client (Chat Completions or Responses) over the same SSRF guard as page fetches:
 * llmBaseUrl is caller input too. The API key is sent only as a Bearer header and never appears in an
 * error message.
 */
/** An LLM answer larger than this is refused (a hostile or broken endpoint must not fill the memory). */
const MAX_ANSWER_BYTES = 8 * 1024 * 1024;

/** The answer's body as text, refused past MAX_ANSWER_BYTES; a body that breaks off reads as what came. */
async function boundedText(
  body: AsyncIterable<Buffer> & { destroy(): unknown },
  host: string,
): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      size += chunk.length;
      if (size > MAX_ANSWER_BYTES) {
        body.destroy();
        throw new LlmError(`LLM endpoint ${host} answered more than ${MAX_ANSWER_BYTES} bytes`);
      }
      chunks.push(chunk);
    }
  } catch (err) {
    if (err instanceof LlmError) throw err;
  }
  return Buffer.concat(chunks).toString('utf8');
}

export class LlmClient {
  private readonly agent: Agent;
  private readonly listeners: UsageListener[] = [];
  private admission: CallAdmission | null = null;

  constructor(
    private readonly guard: GuardOptions,
    /** PROXY_ALL's route (which checks the resolved addresses before a proxy gets the URL); null: directly. */
    private readonly via: ProxyRoute | null = null,
  ) {
    this.agent = new Agent({ connect: { lookup: guardedLookup(guard) }, keepAliveTimeout: 10_000 });
  }

  /** Every answer's tokens go to `listener` (the metrics and the token-usage route count them). */
  onUsage(listener: UsageListener): void {
    this.listeners.push(listener);
  }

  /** Every call is asked of `admission` first. */
  admitWith(admission: CallAdmission): void {
    this.admission = admission;
  }

  /** One prompt, one text answer (structured output when the prompt has a schema). */
  async complete(endpoint: LlmEndpoint, prompt: LlmPrompt, deadline: Deadline): Promise<string> {
    const { url, api } = resolveEndpoint(endpoint.baseUrl);
    await this.admission?.(endpoint);
    const body = api === 'chat' ? chatBody(endpoint.model, prompt) : responsesBody(endpoint.model, prompt);
    const json = await this.post(url, endpoint, body, deadline);
    this.heard(prompt.purpose ?? 'other', usageOf(json), endpoint);
    return answerText(api, json);
  }

  /** One turn of a tool-calling conversation: the model's text and the tools it asks to run, with the usage. */
  async chat(
    endpoint: LlmEndpoint,
    messages: ChatMessage[],
    tools: ToolDefinition[],
    deadline: Deadline,
    purpose: string,
  ): Promise<ChatAnswer> {
    const { url, api } = resolveEndpoint(endpoint.baseUrl);
    await this.admission?.(endpoint);
    const json = await this.post(url, endpoint, toolChatBody(api, endpoint.model, messages, tools), deadline);
    const answer = toolChatAnswer(api, json);
    this.heard(purpose, answer.usage, endpoint);
    return answer;
  }

  private heard(purpose: string, usage: LlmUsage, endpoint: LlmEndpoint): void {
    for (const listener of this.listeners) listener(purpose, usage, endpoint);
  }

  private async post(
    url: URL,
    endpoint: LlmEndpoint,
    body: Record<string, unknown>,
    deadline: Deadline,
  ): Promise<unknown> {
    assertTargetAllowed(url, this.guard);
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (endpoint.apiKey) headers.authorization = `Bearer ${endpoint.apiKey}`;
    let response;
    try {
      const options = {
        method: 'POST' as const,
        headers,
        body: JSON.stringify(body),
        signal: deadline.signal,
        headersTimeout: Math.max(1, deadline.remainingMs()),
        bodyTimeout: Math.max(1, deadline.remainingMs()),
      };
      response = this.via
        ? await this.via.request(url, { ...options, session: 'llm' })
        : await request(url, { ...options, dispatcher: this.agent });
    } catch (err) {
      if (deadline.expired) throw deadline.timeoutError('the LLM call');
      if (err instanceof AppError) throw err;
      throw new TargetUnreachableError(`LLM endpoint ${url.host} could not be reached`);
    }
    const text = await boundedText(response.body, url.host);
    if (response.statusCode >= 400) {
      throw new LlmError(`LLM endpoint ${url.host} answered HTTP ${response.statusCode}`);
    }
    try {
      return JSON.parse(text);
    } catch {
      throw new LlmError(`LLM endpoint ${url.host} did not answer with JSON`);
    }
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}
