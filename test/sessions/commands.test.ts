import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { chromium } from 'playwright-core';
import { Deadline } from '../../src/lib/deadline.js';
import { runCommands, SUPPORTED_COMMANDS } from '../../src/sessions/commands/run-commands.js';

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const skip = existsSync(chromiumPath) ? false : `chromium is not installed at ${chromiumPath}`;
if (skip) console.warn(`\n!!! BROWSER TESTS SKIPPED: ${skip}. Run scripts/ensure-chromium.sh.\n`);

const PAGES: Record<string, string> = {
  '/form': `<!doctype html><title>Sign up</title><h1>Sign up</h1>
    <form onsubmit="event.preventDefault(); document.querySelector('h1').textContent = 'Welcome, ' + this.name.value + (this.news.checked ? ' (news)' : '') + ' from ' + this.country.value">
      <label>Name <input name="name"></label>
      <label><input type="checkbox" name="news"> Newsletter</label>
      <label>Country <select name="country"><option value="uk">UK</option><option value="fr">France</option></select></label>
      <button type="submit">Join</button>
    </form>
    <p id="note" data-kind="plain">Some <b>bold</b> text</p>`,
  '/other': '<!doctype html><title>Other</title><h1>Other page</h1>',
};

describe('agent-browser commands on a real page', { skip }, () => {
  let browser: Browser;
  let page: Page;
  let site = '';
  const server = createServer((req, res) => {
    const body = PAGES[req.url ?? ''];
    res.writeHead(body ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' }).end(body ?? 'not found');
  });

  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    site = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await chromium.launch({ executablePath: chromiumPath });
    page = await browser.newPage();
  });
  after(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const run = (script: string, ms = 20_000) => runCommands(page, script, { deadline: Deadline.after(ms) });
  /** The ref of the snapshot line that matches. */
  const refOf = (snapshot: string, line: RegExp): string => {
    const found = snapshot.split('\n').find((l) => line.test(l));
    assert.ok(found, `no line ${line} in\n${snapshot}`);
    return `@${/ref=(e\d+)/.exec(found)![1]}`;
  };

  test('open, snapshot -i lists the inputs and the button with refs; fill, click and get text use them', async () => {
    const opened = await run(`open ${site}/form`);
    assert.deepEqual(opened, { stdout: `✓ Sign up\n  ${site}/form\n`, stderr: '', exitCode: 0 });

    const snap = await run('snapshot -i');
    assert.equal(snap.exitCode, 0, snap.stderr);
    assert.match(snap.stdout, /^- heading "Sign up" \[level=1, ref=e\d+\]$/m);
    assert.match(snap.stdout, /^- textbox "Name" \[ref=e\d+\]$/m);
    assert.match(snap.stdout, /^- checkbox "Newsletter" \[checked=false, ref=e\d+\]$/m);
    assert.match(snap.stdout, /^- combobox "Country" \[ref=e\d+\]$/m);
    assert.match(snap.stdout, /^- button "Join" \[ref=e\d+\]$/m);
    assert.doesNotMatch(snap.stdout, /bold|text:/, 'no static text in an interactive snapshot');
    const name = refOf(snap.stdout, /textbox "Name"/);
    const join = refOf(snap.stdout, /button "Join"/);

    // The refs are used in a later call, as an agent does between two execute requests.
    const filled = await run(`fill ${name} "Ada"`);
    assert.deepEqual(filled, { stdout: '✓ Done\n', stderr: '', exitCode: 0 });
    const clicked = await run(`agent-browser click ${join}\nagent-browser get text h1`);
    assert.deepEqual(clicked, { stdout: '✓ Done\nWelcome, Ada from uk\n', stderr: '', exitCode: 0 });
  });

  test('&& chains, the agent-browser prefix, quoting, check, select, get value and attr', async () => {
    const result = await run(
      [
        `agent-browser open ${site}/form && agent-browser fill "input[name=name]" 'Ada "Countess" Lovelace'`,
        'check "input[name=news]" && select select France',
        'get value input[name=name] && get attr "#note" data-kind',
        `click 'text=Join' && get text h1 && get title && get url`,
      ].join('\n'),
    );
    assert.equal(result.stderr, '');
    assert.equal(result.exitCode, 0);
    assert.equal(
      result.stdout,
      [
        `✓ Sign up`,
        `  ${site}/form`,
        '✓ Done',
        '✓ Done',
        '✓ Done',
        'Ada "Countess" Lovelace',
        'plain',
        '✓ Done',
        'Welcome, Ada "Countess" Lovelace (news) from fr',
        'Sign up',
        `${site}/form`,
        '',
      ].join('\n'),
    );
  });

  test('a failing command writes stderr, sets the exit code and stops its && chain; the next line still runs', async () => {
    await run(`open ${site}/form`);
    const result = await run('click @e999 && get title\nget title');
    assert.equal(result.exitCode, 0, 'a shell returns the last command status');
    assert.equal(result.stdout, 'Sign up\n', 'the chained get title was skipped, the next line ran');
    assert.equal(
      result.stderr,
      '✗ Unknown ref @e999: take a snapshot first (snapshot -i) and use the refs it lists\n',
    );

    const last = await run('get title && select h1 x');
    assert.equal(last.stdout, 'Sign up\n');
    assert.equal(last.exitCode, 1);
    assert.match(last.stderr, /^✗ .*not a <select> element/);
    const rescued = await run('select h1 x || get title');
    assert.deepEqual([rescued.stdout, rescued.exitCode], ['Sign up\n', 0], '|| runs after a failure');
  });

  test('unknown refs, unknown commands and bad usage fail at once with a clear message', async () => {
    await run(`open ${site}/other`);
    const unknownRef = await run('click @e999');
    assert.equal(unknownRef.exitCode, 1);
    assert.match(unknownRef.stderr, /Unknown ref @e999: take a snapshot first/);

    const unknown = await run('curl http://169.254.169.254/ && get title');
    assert.equal(unknown.exitCode, 127);
    assert.equal(unknown.stdout, '');
    assert.match(unknown.stderr, /Unknown command 'curl'\. Supported commands: .*\bopen\b.*\bsnapshot\b/);
    assert.ok(SUPPORTED_COMMANDS.includes('dblclick'));

    const usage = await run('fill');
    assert.match(usage.stderr, /Missing arguments\. Usage: fill <selector> <text>/);
    const scheme = await run('open file:///etc/passwd');
    assert.equal(scheme.exitCode, 1);
    assert.match(scheme.stderr, /scheme 'file:' is not supported/);
    assert.equal(page.url(), `${site}/other`, 'the page did not move');

    const syntax = await run('get text h1 | head');
    assert.equal(syntax.exitCode, 2);
    assert.match(syntax.stderr, /pipes \(\|\) need a shell/);
  });

  test('a ref from before a navigation is reported gone; back and reload answer where the page is', async () => {
    await run(`open ${site}/form`);
    const join = refOf((await run('snapshot')).stdout, /button "Join"/);
    const moved = await run(`open ${site}/other && click ${join}`);
    assert.equal(moved.exitCode, 1);
    assert.match(
      moved.stderr,
      /Ref @e\d+ is gone: the page navigated since that snapshot; take a new snapshot/,
    );
    assert.equal((await run('back')).stdout, `✓ Sign up\n  ${site}/form\n`);
    assert.equal((await run('reload && get title')).stdout, `✓ Sign up\n  ${site}/form\nSign up\n`);
  });

  test('a full snapshot shows text, -c keeps only lines with refs and their parents, -s scopes it', async () => {
    await run(`open ${site}/form`);
    const full = (await run('snapshot')).stdout;
    assert.match(full, /^ {2}- paragraph: Some bold text$/m);
    assert.match(full, /^ {6}- text: Name$/m);
    assert.match(full, /option "France"/);
    const compact = (await run('snapshot -c')).stdout;
    assert.doesNotMatch(compact, /option "France"/, 'no ref, no value: dropped');
    assert.match(compact, /^ {2}- paragraph: Some bold text$/m);
    assert.match(compact, /button "Join"/);
    const heading = refOf((await run('snapshot -i')).stdout, /heading "Sign up"/);
    const scoped = (await run('snapshot -s form -i')).stdout;
    assert.doesNotMatch(scoped, /heading/);
    const join = refOf(scoped, /button "Join"/);
    assert.ok(Number(join.slice(2)) > Number(heading.slice(2)), 'ref numbers are never reused on a page');
    const earlier = await run(`get text ${heading}`);
    assert.match(earlier.stderr, /Ref @e\d+ is from an earlier snapshot: use the refs of the last snapshot/);
    assert.equal((await run(`get text ${join}`)).stdout, 'Join\n');
  });

  test('screenshot prints a PNG data URL; scroll and wait <ms> answer Done', async () => {
    await run(`open ${site}/form`);
    const shot = await run('screenshot && scroll down 100 && wait 10');
    assert.equal(shot.exitCode, 0, shot.stderr);
    const [png, ...rest] = shot.stdout.split('\n');
    assert.match(png!, /^data:image\/png;base64,iVBOR/);
    assert.deepEqual(rest, ['✓ Done', '✓ Done', '']);
  });

  test('the deadline ends a wait that never resolves, and the rest of the script', async () => {
    await run(`open ${site}/other`);
    const result = await run('wait "#never-there" && get title\nget title', 1_500);
    assert.equal(result.exitCode, 124);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /Timed out during .*: the 1500 ms timeout was exceeded/);
    const text = await run('wait --text "never" \nget title', 1_500);
    assert.equal(text.exitCode, 124);
    const sleep = await run('wait 600000', 1_000);
    assert.equal(sleep.exitCode, 124);
  });
});
