import type { TestContext } from 'node:test';
import { startLlmStub } from '../fixtures/llm-stub.js';
import { site, startService } from '../helpers.js';

export interface Item {
  url: string;
  success: boolean;
  data?: Record<string, unknown>;
  error?: string;
  method?: string;
}

/** The fixture site, an LLM stub and the service, for extract tests. */
export async function setupExtract(t: TestContext, env: Record<string, string> = {}) {
  const s = await site(t);
  const llm = await startLlmStub();
  t.after(() => llm.close());
  const svc = await startService(t, { env });
  const extract = (body: Record<string, unknown>) => svc.post('/api/v1/extract', body);
  return { s, llm, svc, extract, product: `${s.url}/product/alpin-gtx` };
}
