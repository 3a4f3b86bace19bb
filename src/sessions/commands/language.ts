import type { Config } from '../../config/config.js';
import { BadRequestError } from '../../errors.js';

/** The languages an execute request can run: agent-browser's commands, or Playwright code with the opt-in. */
export type ExecuteLanguage = 'bash' | 'node';

/**
 * Checks an execute request's `language` before anything runs: `bash` (the SDK's default, also when absent) is
 * agent-browser's command language; `node` needs `BROWSER_EXECUTE_CODE=true`; anything else (Firecrawl's
 * `python`) is a 400 naming what is supported.
 */
export function checkLanguage(
  language: string | undefined,
  settings: Pick<Config, 'browserExecuteCode'>,
): ExecuteLanguage {
  if (language === undefined || language === 'bash') return 'bash';
  if (language === 'node') {
    if (settings.browserExecuteCode) return 'node';
    throw new BadRequestError(
      'language "node" runs code on this server and is off: the operator turns it on with ' +
        'BROWSER_EXECUTE_CODE=true. language "bash" (agent-browser commands) is always available',
    );
  }
  throw new BadRequestError(
    `language "${language.slice(0, 40)}" is not supported: use "bash" (agent-browser commands)` +
      `${settings.browserExecuteCode ? ' or "node" (Playwright code)' : ', or "node" with BROWSER_EXECUTE_CODE=true'}`,
  );
}
