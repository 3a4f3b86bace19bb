/**
 * The program the sandboxed Node process runs (sandbox.ts writes it to a file of its own; it is plain
 * JavaScript because the child has no TypeScript loader). argv[2] is playwright-core's `index.mjs`; the
 * caller's code arrives on stdin. fd 3 is a pipe to the service: a relay on 127.0.0.1 (the namespace's own
 * loopback) takes Playwright's one WebSocket connection and passes its bytes through that pipe, where the
 * service speaks the session's filtered CDP. fd 4 takes the return value. Console output goes to stdout,
 * an error to stderr with exit code 1.
 */
export const RUNNER_SOURCE = String.raw`
import fs from 'node:fs';
import net from 'node:net';

const MAX_RESULT_CHARS = 1000000;
const { chromium } = await import(process.argv[2]);
const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const code = Buffer.concat(chunks).toString('utf8');

const pipe = new net.Socket({ fd: 3, readable: true, writable: true });
const relay = net.createServer((conn) => {
  relay.close();
  conn.pipe(pipe).pipe(conn);
  conn.on('error', () => pipe.destroy());
  pipe.on('error', () => conn.destroy());
});
await new Promise((resolve, reject) => {
  relay.once('error', reject);
  relay.listen(0, '127.0.0.1', resolve);
});

function resultOf(value) {
  if (value === undefined || value === null) return null;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text === undefined ? null : text.slice(0, MAX_RESULT_CHARS);
}

let exitCode = 0;
try {
  const browser = await chromium.connectOverCDP('ws://127.0.0.1:' + relay.address().port + '/cdp');
  const context = browser.contexts()[0];
  const page = context.pages().filter((p) => !p.isClosed()).at(-1) ?? (await context.newPage());
  const AsyncFunction = (async () => undefined).constructor;
  const run = new AsyncFunction('page', 'context', 'browser', 'console', code);
  const value = await run(page, context, browser, console);
  const result = resultOf(value);
  if (result !== null) fs.writeSync(4, result);
} catch (err) {
  process.stderr.write(String(err && err.stack ? err.stack : err) + '\n');
  exitCode = 1;
}
process.exit(exitCode);
`;
