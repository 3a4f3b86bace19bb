// The browser engine's and browser sessions' settings: a section of the settings table (settings.ts).
import { bool, bytes, int, oneOf, section, text } from './kinds.js';

const MIB = 1024 * 1024;
const GIB = 1024 * MIB;

export const BROWSER_SETTINGS = section('Browser', {
  chromiumPath: text(
    { env: 'CHROMIUM_PATH', default: '/usr/bin/chromium', accepts: 'a file path' },
    'Chromium for the browser engine; the engine is off when the file does not exist.',
  ),
  browserMaxPages: int(
    { env: 'BROWSER_MAX_PAGES', default: 4, min: 1, max: 64 },
    'Browser pages (contexts) open at once; further requests wait, within their timeout.',
  ),
  maxBrowserSessions: int(
    { env: 'MAX_BROWSER_SESSIONS', default: 5, min: 0, max: 256 },
    'Browser sessions (`POST /v2/browser`) open at once in this process, each a context of a Chromium of ' +
      'their own, apart from `BROWSER_MAX_PAGES`; one more is a `429`. `0` turns sessions off.',
  ),
  browserExecuteCode: bool(
    { env: 'BROWSER_EXECUTE_CODE', default: false },
    'The opt-in for a browser session\'s execute with `language: "node"` (Playwright code), else a `400` naming ' +
      "this setting. The code runs sandboxed, reaching nothing but its session's filtered CDP (docs/operations.md)" +
      '; a `503` names what this server lacks to build the sandbox. `bash` (agent-browser commands) needs no opt-in.',
  ),
  browserCodeMemoryBytes: bytes(
    { env: 'BROWSER_CODE_MEMORY_BYTES', default: GIB, min: 768 * MIB, max: 64 * GIB },
    "Memory a run of `node` code may map writable (`RLIMIT_DATA`: heap, Buffers), Node's ~650 MiB included.",
  ),
  browserCodeCpuSeconds: int(
    { env: 'BROWSER_CODE_CPU_SECONDS', default: 60, min: 2, max: 300, unit: 's' },
    'CPU time a run of `node` code may use (`RLIMIT_CPU`, all its threads), at most its `timeout` and a second.',
  ),
  sessionIsolation: oneOf(
    ['auto', 'namespaces', 'shared'],
    { env: 'SESSION_ISOLATION', default: 'auto' },
    "How browser sessions' browsers are kept apart. `namespaces`: each session gets a Chromium of its own in " +
      'user, network, mount and PID namespaces of its own, whose only way out is the guarded proxy (a `503` where ' +
      'the machine cannot make them); `shared`: one Chromium holds every session, each in contexts of its own; ' +
      '`auto`: `namespaces` where the machine can, else `shared`, said at start.',
  ),
  sessionMemoryBytes: bytes(
    { env: 'SESSION_MEMORY_BYTES', default: GIB, min: 256 * MIB, max: 64 * GIB },
    "Memory of a session's own Chromium (its processes' proportional set size, sampled every second); past " +
      "it the session ends with the cause `memory`. Each renderer's JavaScript heap is held to half of it.",
  ),
  sessionDiskBytes: bytes(
    { env: 'SESSION_DISK_BYTES', default: 256 * MIB, min: 16 * MIB, max: 16 * GIB },
    "A session's own Chromium's whole disk: its profile, cache and temporary files, in memory (tmpfs).",
  ),
  maxSessionContexts: int(
    { env: 'MAX_SESSION_CONTEXTS', default: 4, min: 0, max: 64 },
    "Browser contexts a session's CDP clients may add (`Target.createBrowserContext`, Playwright's " +
      '`newContext`), counted when asked; one more is refused with a CDP error naming this setting.',
  ),
  maxSessionPages: int(
    { env: 'MAX_SESSION_PAGES', default: 20, min: 1, max: 500 },
    "Pages open at once in a session's contexts, counted when asked (`Target.createTarget`); one more is " +
      'refused with a CDP error, a popup past it is closed.',
  ),
});
