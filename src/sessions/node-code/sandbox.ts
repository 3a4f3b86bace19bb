import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { ServiceUnavailableError } from '../../errors.js';
import type { Deadline } from '../../lib/deadline.js';
import type { CdpClientSocket } from '../cdp-proxy.js';
import { RUNNER_SOURCE } from './runner.js';

/** What the caller's code printed, returned and how it ended. */
export interface NodeRunOutput {
  stdout: string;
  stderr: string;
  exitCode: number;
  /** The return value: a string as it is, anything else as JSON; null for undefined. */
  result: string | null;
}

export interface NodeRunOptions {
  code: string;
  deadline: Deadline;
  /** Joins the code's one CDP connection to the session, through its CdpFilter (BrowserSessions.connectCdp). */
  connect: (client: CdpClientSocket) => Promise<void>;
  maxStdoutChars: number;
  maxStderrChars: number;
}

const UTILS = ['unshare', 'ip', 'mount', 'chroot', 'env', 'sh'] as const;
const DIRS = ['/usr/bin', '/usr/sbin', '/bin', '/sbin'];
const MAX_RESULT_CHARS = 1_000_000;
const MAX_CDP_MESSAGE = 256 * 1024 * 1024;

/**
 * Inside new user, network and mount namespaces: brings the namespace's own loopback up, builds a root of a
 * fresh 8 MB tmpfs (its /tmp the only place to write) with /usr (and /bin, /lib, ... as the host has them) and the given directories bound read-only,
 * and runs the command chrooted there with an empty environment (but HOME=/, which Playwright reads). So the code sees no host network, no
 * abstract or path Unix socket of the host, and no file but the system's libraries, Node and playwright-core.
 */
const SETUP = `set -e
PATH=/usr/sbin:/usr/bin:/sbin:/bin
ip=$1; root=$2; shift 2
"$ip" link set lo up
mount -t tmpfs -o size=8m,mode=755 pagewright-code "$root"
bind() { mkdir -p "$root$1"; mount --rbind "$1" "$root$1"; mount -o remount,bind,ro "$root$1"; }
mkdir -m 1777 "$root/tmp"
bind /usr
for d in bin sbin lib lib32 lib64 libx32; do
  if [ -L "/$d" ]; then ln -s "$(readlink "/$d")" "$root/$d"; elif [ -d "/$d" ]; then bind "/$d"; fi
done
while [ "$1" != "--" ]; do bind "$1"; shift; done
shift
exec env -i HOME=/ "$(command -v chroot)" "$root" "$@"`;

function which(name: string): string | null {
  for (const dir of DIRS) {
    const file = path.join(dir, name);
    if (existsSync(file)) return file;
  }
  return null;
}

/**
 * Runs a caller's Playwright code for `language: "node"` in a child Node process that has no network but a
 * relay to its session's filtered CDP (runner.ts): user, network and mount namespaces (util-linux `unshare`),
 * a chroot of read-only system files, an empty environment, and Node's permission model (reads of the runner
 * and playwright-core, writes to the private /tmp only; no child processes, workers, addons, WASI or inspector). Killed at the
 * deadline.
 */
/**
 * Node 25 and later put the network under the permission model too: the runner's relay listens on the sandbox's
 * own loopback (its CDP bridge to the session), so it is allowed; the network namespace, with nothing but that
 * loopback, is what keeps the code off every network. Node 24 knows no such flag.
 */
const NET_PERMISSION = Number(process.versions.node.split('.')[0]) >= 25 ? ['--allow-net'] : [];

export class NodeSandbox {
  private probed: Promise<string | null> | null = null;
  private readonly tools: Record<(typeof UTILS)[number], string | null>;
  private readonly node = realpathSync(process.execPath);
  private readonly playwright = path.dirname(
    realpathSync(createRequire(import.meta.url).resolve('playwright-core/package.json')),
  );

  constructor() {
    this.tools = Object.fromEntries(UTILS.map((u) => [u, which(u)])) as typeof this.tools;
  }

  /** Throws a 503 saying what is missing when this machine cannot build the sandbox (probed once). */
  async ensureAvailable(): Promise<void> {
    this.probed ??= this.probe();
    const missing = await this.probed;
    if (missing) {
      throw new ServiceUnavailableError(
        `language "node" needs unprivileged user namespaces (unshare --user --net --mount) and iproute2 ` +
          `on this server, and they do not work here: ${missing}. language "bash" is available`,
      );
    }
  }

  async run(options: NodeRunOptions): Promise<NodeRunOutput> {
    await this.ensureAvailable();
    const work = mkdtempSync(path.join(os.tmpdir(), 'pagewright-code-'));
    try {
      mkdirSync(path.join(work, 'root'));
      mkdirSync(path.join(work, 'runner'));
      const runner = path.join(work, 'runner', 'runner.mjs');
      writeFileSync(runner, RUNNER_SOURCE);
      const entry = path.join(this.playwright, 'index.mjs');
      const child = this.spawn(work, [
        '--max-old-space-size=512',
        '--permission',
        `--allow-fs-read=${runner}`,
        `--allow-fs-read=${this.playwright}`,
        // Playwright asks whether it runs under WSL at load; the chroot has neither folder, so the answer is no.
        '--allow-fs-read=/proc/*',
        '--allow-fs-read=/run/*',
        // Playwright's connectOverCDP makes a folder for artifacts: /tmp of the private root (its 8 MB tmpfs).
        '--allow-fs-read=/tmp/*',
        '--allow-fs-write=/tmp/*',
        ...NET_PERMISSION,
        runner,
        entry,
      ]);
      return await this.collect(child, options);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }

  private spawn(work: string, nodeArgs: string[]): ChildProcess {
    const t = this.tools;
    const binds = [path.dirname(this.node), this.playwright, path.join(work, 'runner')];
    const args = ['--user', '--map-root-user', '--net', '--mount', '--', t.sh!, '-c', SETUP, 'sh'];
    args.push(t.ip!, path.join(work, 'root'), ...binds, '--', this.node, ...nodeArgs);
    return spawn(t.unshare!, args, {
      env: {},
      cwd: work,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe', 'pipe', 'pipe'],
    });
  }

  /** Why the sandbox cannot be built here, or null when a trivial program runs in it. */
  private async probe(): Promise<string | null> {
    const absent = UTILS.filter((u) => !this.tools[u]);
    if (absent.length > 0) return `${absent.join(', ')} not found in ${DIRS.join(', ')}`;
    const work = mkdtempSync(path.join(os.tmpdir(), 'pagewright-code-'));
    try {
      mkdirSync(path.join(work, 'root'));
      mkdirSync(path.join(work, 'runner'));
      const child = this.spawn(work, ['--permission', '-e', 'process.exit(0)']);
      child.stdin?.end();
      let stderr = '';
      child.stderr?.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
      const code = await new Promise<number | null>((resolve) => {
        const timer = setTimeout(() => kill(child), 20_000);
        child.on('error', (err) => (stderr += err.message));
        child.on('close', (c) => {
          clearTimeout(timer);
          resolve(c);
        });
      });
      return code === 0
        ? null
        : stderr.trim().split('\n').slice(-2).join(' ').slice(0, 300) || `exit ${code}`;
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }

  private async collect(child: ChildProcess, options: NodeRunOptions): Promise<NodeRunOutput> {
    const { deadline } = options;
    const stdout = bounded(options.maxStdoutChars + 1);
    const stderr = bounded(options.maxStderrChars + 1);
    const result = bounded(MAX_RESULT_CHARS);
    child.stdout?.on('data', stdout.add);
    child.stderr?.on('data', stderr.add);
    (child.stdio[4] as Socket | null)?.on('data', result.add);
    const bridge = bridgeCdp(child.stdio[3] as Socket, options.connect);
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(options.code);
    const onAbort = (): void => kill(child);
    deadline.signal.addEventListener('abort', onAbort, { once: true });
    if (deadline.signal.aborted) kill(child);
    const exit = await new Promise<number | null>((resolve) => {
      child.on('error', (err) => {
        stderr.add(Buffer.from(`${err.message}\n`));
        resolve(null);
      });
      child.on('close', (code) => resolve(code));
    });
    deadline.signal.removeEventListener('abort', onAbort);
    bridge.close();
    if (deadline.signal.aborted) {
      const why = deadline.expired ? 'timed out' : 'was cancelled';
      return {
        stdout: stdout.text(),
        stderr: `${stderr.text()}The code ${why}\n`,
        exitCode: 124,
        result: null,
      };
    }
    return {
      stdout: stdout.text(),
      stderr: stderr.text(),
      exitCode: exit ?? 1,
      result: result.text() || null,
    };
  }
}

/** Collects a stream's text up to `max` characters (the rest is dropped, the caller sees the excess). */
function bounded(max: number) {
  let text = '';
  return {
    add: (data: Buffer): void => {
      if (text.length < max) text += data.toString('utf8').slice(0, max - text.length);
    },
    text: () => text,
  };
}

function kill(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}

/**
 * Serves the child's fd-3 pipe as one HTTP connection: its one WebSocket upgrade is joined to the session by
 * `connect` (the CdpFilter applies); any other request, or a second upgrade, is refused.
 */
function bridgeCdp(pipe: Socket, connect: NodeRunOptions['connect']): { close(): void } {
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_CDP_MESSAGE });
  const server = createServer((_req, res) => res.writeHead(404).end());
  let used = false;
  server.on('upgrade', (req, socket: Duplex, head: Buffer) => {
    if (used || !req.url?.startsWith('/cdp')) return void socket.destroy();
    used = true;
    wss.handleUpgrade(req, socket, head, (ws) => {
      connect(ws).catch((err: unknown) => {
        ws.close(1011, (err instanceof Error ? err.message : String(err)).slice(0, 120));
      });
    });
  });
  pipe.on('error', () => undefined);
  server.emit('connection', pipe);
  return {
    close: () => {
      for (const ws of wss.clients) ws.terminate();
      wss.close();
      pipe.destroy();
    },
  };
}
