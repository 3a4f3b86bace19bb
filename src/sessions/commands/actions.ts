import type { Page } from 'playwright-core';
import { BadRequestError } from '../../errors.js';
import { parseTargetUrl } from '../../lib/target-url.js';
import type { Command } from './args.js';
import { DONE, required, takeFlag, takeOption, timeoutOf, wholeNumber } from './args.js';
import { CommandError } from './command-error.js';
import { locate } from './targets.js';

/**
 * The URL `open` navigates to. A URL without a scheme gets https://, as agent-browser does; anything but http(s)
 * (file:, data:, chrome:, javascript:) and about:blank is refused, so `open` reaches only what a scrape could:
 * the page's network still goes through the SSRF guard's proxy, and no other scheme gets past this check.
 */
export function navigationUrl(raw: string): string {
  if (raw === 'about:blank') return raw;
  const withScheme = /^[a-z][a-z0-9+.-]*:/i.test(raw) ? raw : `https://${raw}`;
  try {
    return parseTargetUrl(withScheme, 'open').href;
  } catch (err) {
    throw new CommandError(err instanceof BadRequestError ? err.message : String(err));
  }
}

/** agent-browser's answer to a navigation: the title, then the URL. */
async function landed(page: Page): Promise<string> {
  const title = await page.title().catch(() => '');
  return `✓ ${title}\n  ${page.url()}`;
}

const open: Command = async ({ page, deadline }, args) => {
  const raw = args.find((a) => !a.startsWith('--'));
  if (raw === undefined) return DONE; // `open` alone launches agent-browser's browser; the session has one
  await page.goto(navigationUrl(raw), { waitUntil: 'load', ...timeoutOf(deadline) });
  return landed(page);
};

const goto: Command = async (ctx, args) => {
  required(args, 0, 'goto <url>');
  return open(ctx, args);
};

/** A command that acts on one element and answers `✓ Done`. */
function onElement(
  usage: string,
  act: (locator: Awaited<ReturnType<typeof locate>>, timeout: { timeout: number }) => Promise<unknown>,
): Command {
  return async ({ page, deadline }, args) => {
    const target = await locate(page, required(args, 0, usage));
    await act(target, timeoutOf(deadline));
    return DONE;
  };
}

const click: Command = async (ctx, args) => {
  if (args.includes('--new-tab')) {
    throw new CommandError('click --new-tab is not supported: a session drives one page');
  }
  return onElement('click <selector>', (el, t) => el.click(t))(ctx, args);
};

const fill: Command = async ({ page, deadline }, args) => {
  const target = await locate(page, required(args, 0, 'fill <selector> <text>'));
  await target.fill(args.slice(1).join(' '), timeoutOf(deadline));
  return DONE;
};

const type: Command = async ({ page, deadline }, args) => {
  const usage = 'type <selector> <text> [--clear] [--delay <ms>]';
  const rest = [...args];
  const clear = takeFlag(rest, ['--clear']);
  const delayRaw = takeOption(rest, ['--delay'], usage);
  const delay = delayRaw === undefined ? 0 : wholeNumber(delayRaw, '--delay');
  const target = await locate(page, required(rest, 0, usage));
  if (clear) await target.fill('', timeoutOf(deadline));
  await target.pressSequentially(rest.slice(1).join(' '), { delay, ...timeoutOf(deadline) });
  return DONE;
};

const press: Command = async ({ page }, args) => {
  await page.keyboard.press(required(args, 0, 'press <key>'));
  return DONE;
};

const keyboard: Command = async ({ page }, args) => {
  const usage = 'keyboard <type|inserttext> <text>';
  const sub = required(args, 0, usage);
  const text = required([args.slice(1).join(' ')], 0, usage);
  if (sub === 'type') await page.keyboard.type(text);
  else if (sub === 'inserttext' || sub === 'insertText') await page.keyboard.insertText(text);
  else throw new CommandError(`Unknown subcommand 'keyboard ${sub}'. Valid options: type, inserttext`);
  return DONE;
};

const select: Command = async ({ page, deadline }, args) => {
  const usage = 'select <selector> <value...>';
  const target = await locate(page, required(args, 0, usage));
  required(args, 1, usage);
  await target.selectOption(args.slice(1), timeoutOf(deadline));
  return DONE;
};

const SCROLL = { up: [0, -1], down: [0, 1], left: [-1, 0], right: [1, 0] } as const;

const scroll: Command = async ({ page, deadline }, args) => {
  const usage = 'scroll [up|down|left|right] [px] [--selector <sel>]';
  const rest = [...args];
  const selector = takeOption(rest, ['-s', '--selector'], usage);
  const direction = rest[0] ?? 'down';
  if (!(direction in SCROLL)) {
    throw new CommandError(`Unknown scroll direction '${direction}'. Valid options: up, down, left, right`);
  }
  const amount = rest[1] === undefined ? 300 : wholeNumber(rest[1], 'The scroll amount');
  const [dx, dy] = SCROLL[direction as keyof typeof SCROLL].map((d) => d * amount) as [number, number];
  if (selector === undefined) {
    await page.evaluate(([x, y]) => window.scrollBy(x, y), [dx, dy] as const);
  } else {
    const target = await locate(page, selector);
    await target.evaluate((el, [x, y]) => el.scrollBy(x, y), [dx, dy] as const, timeoutOf(deadline));
  }
  return DONE;
};

/** Navigation, input and scrolling (agent-browser's "Core" commands that change the page). */
export const ACTIONS: Record<string, Command> = {
  open,
  goto,
  navigate: goto,
  back: async ({ page, deadline }) => {
    await page.goBack(timeoutOf(deadline));
    return landed(page);
  },
  forward: async ({ page, deadline }) => {
    await page.goForward(timeoutOf(deadline));
    return landed(page);
  },
  reload: async ({ page, deadline }) => {
    await page.reload(timeoutOf(deadline));
    return landed(page);
  },
  click,
  dblclick: onElement('dblclick <selector>', (el, t) => el.dblclick(t)),
  fill,
  type,
  press,
  key: press,
  keyboard,
  hover: onElement('hover <selector>', (el, t) => el.hover(t)),
  focus: onElement('focus <selector>', (el, t) => el.focus(t)),
  check: onElement('check <selector>', (el, t) => el.check(t)),
  uncheck: onElement('uncheck <selector>', (el, t) => el.uncheck(t)),
  select,
  scroll,
  scrollintoview: onElement('scrollintoview <selector>', (el, t) => el.scrollIntoViewIfNeeded(t)),
};
