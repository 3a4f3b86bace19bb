import type { Page } from 'playwright-core';
import type { Deadline } from '../lib/deadline.js';

/**
 * The native API's actions (click, type, wait, waitForSelector, scroll) and Firecrawl's (write, press, screenshot,
 * scrape, executeJavascript, pdf). Scroll takes `direction` (down by default) and `amount` px, or a `selector`
 * to bring into view; down with no amount scrolls until the page stops growing. Click with `all` clicks every
 * match.
 */
export interface BrowserAction {
  type:
    | 'click'
    | 'type'
    | 'wait'
    | 'waitForSelector'
    | 'scroll'
    | 'write'
    | 'press'
    | 'screenshot'
    | 'scrape'
    | 'executeJavascript'
    | 'pdf';
  selector?: string;
  text?: string;
  milliseconds?: number;
  direction?: 'up' | 'down';
  amount?: number;
  all?: boolean;
  key?: string;
  script?: string;
  fullPage?: boolean;
  format?: 'A0' | 'A1' | 'A2' | 'A3' | 'A4' | 'A5' | 'A6' | 'Letter' | 'Legal' | 'Tabloid' | 'Ledger';
  landscape?: boolean;
  scale?: number;
}

/** What the actions produced, in the order they ran (Firecrawl's `actions` of a document). */
export interface ActionOutputs {
  screenshots: string[];
  scrapes: { url: string; html: string }[];
  javascriptReturns: { type: string; value: unknown }[];
  pdfs: string[];
}

/** A value returned by a script is kept only up to this size (JSON characters). */
const MAX_SCRIPT_RETURN_CHARS = 1_000_000;
/** Clicks of one `click` with `all`, at most. */
const MAX_CLICKS = 100;

/** The fields each action type needs; checked before anything is fetched. */
export function actionProblem(action: BrowserAction): string | null {
  switch (action.type) {
    case 'click':
    case 'waitForSelector':
      return action.selector ? null : `${action.type} needs a selector`;
    case 'type':
      return action.selector && action.text !== undefined ? null : 'type needs a selector and text';
    case 'write':
      return action.text !== undefined ? null : 'write needs text';
    case 'press':
      return action.key ? null : 'press needs a key';
    case 'executeJavascript':
      return action.script ? null : 'executeJavascript needs a script';
    case 'wait':
      return action.milliseconds !== undefined ? null : 'wait needs milliseconds';
    case 'scroll':
    case 'screenshot':
    case 'scrape':
    case 'pdf':
      return null;
  }
}

/** Whether any action produces an output (the document then carries `actions`). */
export const producesOutput = (actions: BrowserAction[] | undefined): boolean =>
  (actions ?? []).some((a) => ['screenshot', 'scrape', 'executeJavascript', 'pdf'].includes(a.type));

export function emptyOutputs(): ActionOutputs {
  return { screenshots: [], scrapes: [], javascriptReturns: [], pdfs: [] };
}

function returned(value: unknown): { type: string; value: unknown } {
  const type = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
  const text = JSON.stringify(value) ?? 'null';
  if (text.length > MAX_SCRIPT_RETURN_CHARS) {
    return { type: 'string', value: `(the value returned was ${text.length} characters of JSON; cut)` };
  }
  return { type, value: value === undefined ? null : value };
}

/** A script with a top-level `return` runs as a function body; any other as an expression or statements. */
const asExpression = (script: string): string =>
  /(^|[;{}\s])return\b/.test(script) ? `(async () => {\n${script}\n})()` : script;

/** Bounds of scrolling until the page stops growing: steps, time, and how long one step waits for growth. */
const SCROLL_MAX_STEPS = 50;
const SCROLL_MAX_MS = 15_000;
const SCROLL_GROWTH_WAIT_MS = 1000;

/**
 * Scrolls to the bottom again and again while the page grows (infinite feeds, lazy images), and stops when a
 * step brings no growth within a second, after 50 steps or 15 s, or at the deadline.
 */
async function scrollUntilStable(page: Page, deadline: Deadline): Promise<void> {
  const until = Date.now() + Math.min(SCROLL_MAX_MS, deadline.remainingMs() - 250);
  const height = (): Promise<number> => page.evaluate(() => document.documentElement.scrollHeight);
  for (let step = 0; step < SCROLL_MAX_STEPS && Date.now() < until; step++) {
    const before = await height();
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    let grown = false;
    const wait = Math.min(until, Date.now() + SCROLL_GROWTH_WAIT_MS);
    while (!grown && Date.now() < wait) {
      await page.waitForTimeout(100);
      grown = (await height()) > before;
    }
    if (!grown) return;
  }
}

export async function runAction(
  page: Page,
  action: BrowserAction,
  deadline: Deadline,
  out: ActionOutputs,
): Promise<void> {
  // Leave a little of the budget so a missing element fails as the action, not as the whole request.
  const timeout = Math.max(1, deadline.remainingMs() - 250);
  switch (action.type) {
    case 'click':
      if (action.all) {
        const matches = page.locator(action.selector!);
        const count = Math.min(await matches.count(), MAX_CLICKS);
        for (let i = 0; i < count; i++) await matches.nth(i).click({ timeout });
      } else {
        await page.click(action.selector!, { timeout });
      }
      break;
    case 'type':
      await page.fill(action.selector!, action.text!, { timeout });
      break;
    case 'write':
      await page.keyboard.type(action.text!);
      break;
    case 'press':
      await page.keyboard.press(action.key!);
      break;
    case 'wait':
      await page.waitForTimeout(Math.min(action.milliseconds!, deadline.remainingMs()));
      break;
    case 'waitForSelector':
      await page.waitForSelector(action.selector!, { timeout });
      break;
    case 'scroll':
      if (action.selector) {
        await page.locator(action.selector).first().scrollIntoViewIfNeeded({ timeout });
      } else if (action.amount === undefined && action.direction !== 'up') {
        await scrollUntilStable(page, deadline);
        break;
      } else {
        const sign = action.direction === 'up' ? -1 : 1;
        await page.mouse.wheel(0, sign * (action.amount ?? 800));
      }
      // Let scroll handlers (infinite lists, lazy images) react.
      await page.waitForTimeout(Math.min(300, deadline.remainingMs()));
      break;
    case 'screenshot':
      out.screenshots.push(
        `data:image/png;base64,${(await page.screenshot({ type: 'png', fullPage: action.fullPage ?? false, timeout })).toString('base64')}`,
      );
      break;
    case 'scrape':
      out.scrapes.push({ url: page.url(), html: await page.content() });
      break;
    case 'executeJavascript':
      // The caller's script runs as the page's own scripts do: every request it makes passes the guard.
      out.javascriptReturns.push(returned(await page.evaluate(asExpression(action.script!))));
      break;
    case 'pdf':
      out.pdfs.push(
        `data:application/pdf;base64,${(
          await page.pdf({
            format: action.format ?? 'Letter',
            landscape: action.landscape ?? false,
            scale: action.scale ?? 1,
          })
        ).toString('base64')}`,
      );
      break;
  }
}
