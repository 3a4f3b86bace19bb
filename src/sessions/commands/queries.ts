import { sleep } from '../../lib/sleep.js';
import type { Command } from './args.js';
import { DONE, required, takeFlag, takeOption, timeoutOf, wholeNumber } from './args.js';
import { CommandError } from './command-error.js';
import { takeSnapshot } from './snapshot.js';
import { locate } from './targets.js';

const snapshot: Command = async ({ page, deadline }, args) => {
  const usage = 'snapshot [-i] [-c] [-u] [-d <depth>] [-s <selector>]';
  const rest = [...args];
  const depth = takeOption(rest, ['-d', '--depth'], usage);
  const options = {
    interactive: takeFlag(rest, ['-i', '--interactive']),
    compact: takeFlag(rest, ['-c', '--compact']),
    urls: takeFlag(rest, ['-u', '--urls']),
    depth: depth === undefined ? null : wholeNumber(depth, '--depth'),
    selector: takeOption(rest, ['-s', '--selector'], usage) ?? null,
  };
  if (rest.length > 0) throw new CommandError(`Unknown snapshot option '${rest[0]}'. Usage: ${usage}`);
  return takeSnapshot(page, options, deadline);
};

const GET_SUBCOMMANDS = 'text, html, value, attr, title, url, count, box';

const get: Command = async ({ page, deadline }, args) => {
  const sub = required(args, 0, `get <${GET_SUBCOMMANDS.replaceAll(', ', '|')}> [args...]`);
  const t = timeoutOf(deadline);
  switch (sub) {
    case 'title':
      return page.title();
    case 'url':
      return page.url();
    case 'text':
      return (await locate(page, required(args, 1, 'get text <selector>'))).innerText(t);
    case 'html':
      return (await locate(page, required(args, 1, 'get html <selector>'))).innerHTML(t);
    case 'value':
      return (await locate(page, required(args, 1, 'get value <selector>'))).inputValue(t);
    case 'attr': {
      const usage = 'get attr <selector> <attribute>';
      const target = await locate(page, required(args, 1, usage));
      return (await target.getAttribute(required(args, 2, usage), t)) ?? '';
    }
    case 'count':
      return String(await page.locator(required(args, 1, 'get count <selector>')).count());
    case 'box': {
      const box = await (await locate(page, required(args, 1, 'get box <selector>'))).boundingBox(t);
      return JSON.stringify(box);
    }
    default:
      throw new CommandError(`Unknown subcommand 'get ${sub}'. Valid options: ${GET_SUBCOMMANDS}`);
  }
};

const is: Command = async ({ page, deadline }, args) => {
  const sub = required(args, 0, 'is <visible|enabled|checked> <selector>');
  const target = await locate(page, required(args, 1, `is ${sub} <selector>`));
  const t = timeoutOf(deadline);
  if (sub === 'visible') return String(await target.isVisible());
  if (sub === 'enabled') return String(await target.isEnabled(t));
  if (sub === 'checked') return String(await target.isChecked(t));
  throw new CommandError(`Unknown subcommand 'is ${sub}'. Valid options: visible, enabled, checked`);
};

const WAIT_USAGE = 'wait <selector|ms|--text <text>|--url <pattern>|--load <state>|--fn <expression>>';
const STATES = ['attached', 'detached', 'visible', 'hidden'] as const;
const LOAD_STATES = ['load', 'domcontentloaded', 'networkidle'] as const;

/**
 * agent-browser's `wait`: for a number of ms, an element (`--state visible|hidden|attached|detached`), a text,
 * a URL pattern, a load state or a JavaScript condition; `--timeout <ms>` shortens it (never past the deadline).
 */
const wait: Command = async ({ page, deadline }, args) => {
  const rest = [...args];
  const own = takeOption(rest, ['--timeout'], WAIT_USAGE);
  const t = timeoutOf(own === undefined ? deadline : deadline.slice(wholeNumber(own, '--timeout', 1)));
  const url = takeOption(rest, ['--url', '-u'], WAIT_USAGE);
  const load = takeOption(rest, ['--load', '-l'], WAIT_USAGE);
  const fn = takeOption(rest, ['--fn', '-f'], WAIT_USAGE);
  const text = takeOption(rest, ['--text', '-t'], WAIT_USAGE);
  const state = takeOption(rest, ['--state'], WAIT_USAGE) ?? 'visible';
  if (url !== undefined) await page.waitForURL(url, t);
  else if (load !== undefined) {
    if (!(LOAD_STATES as readonly string[]).includes(load)) {
      throw new CommandError(`Unknown load state '${load}'. Valid options: ${LOAD_STATES.join(', ')}`);
    }
    await page.waitForLoadState(load as (typeof LOAD_STATES)[number], t);
  } else if (fn !== undefined) await page.waitForFunction(fn, undefined, t);
  else if (text !== undefined) await page.getByText(text).first().waitFor(t);
  else {
    const target = required(rest, 0, WAIT_USAGE);
    if (/^\d+$/.test(target)) {
      await sleep(Number(target), deadline.signal);
      deadline.check('wait'); // a wait longer than what is left ends at the deadline, as a failure
    } else {
      if (!(STATES as readonly string[]).includes(state)) {
        throw new CommandError(`Unknown state '${state}'. Valid options: ${STATES.join(', ')}`);
      }
      await (await locate(page, target)).waitFor({ state: state as (typeof STATES)[number], ...t });
    }
  }
  return DONE;
};

/**
 * A PNG of the viewport (`--full`: the whole page; a selector or ref: that element) as a data URL on stdout.
 * agent-browser writes a file instead; a session writes nothing to the server's disk, so a path is ignored.
 */
const screenshot: Command = async ({ page, deadline }, args) => {
  const rest = [...args];
  const fullPage = takeFlag(rest, ['--full', '-f']);
  const selector = rest.find((a) => !/\.(png|jpe?g|webp)$/i.test(a) && !a.includes('/'));
  const t = timeoutOf(deadline);
  const png = selector
    ? await (await locate(page, selector)).screenshot({ type: 'png', ...t })
    : await page.screenshot({ type: 'png', fullPage, ...t });
  return `data:image/png;base64,${png.toString('base64')}`;
};

/** JavaScript in the page (what a page's own scripts could do), its value printed as agent-browser prints it. */
const evaluate: Command = async ({ page }, args) => {
  const script = required([args.join(' ')], 0, 'eval <js>');
  const value: unknown = await page.evaluate(script);
  if (value === undefined) return '';
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
};

/** Commands that read the page or wait for it. */
export const QUERIES: Record<string, Command> = {
  snapshot,
  get,
  is,
  wait,
  screenshot,
  eval: evaluate,
};
