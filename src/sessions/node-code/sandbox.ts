import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
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
import { DIRS, UTILS, findTools, heapMegabytes, jailCommand, limitMessage, modesFor } from './isolation.js';
import type { IsolationMode, SandboxLimits } from './isolation.js';
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

const MAX_RESULT_CHARS = 1_000_000;
const MAX_CDP_MESSAGE = 256 * 1024 * 1024;

/**
 * Node 25 and later put the network under the permission model too: the runner's relay listens on the sandbox's
 * own loopback (its CDP bridge to the session), so it is allowed; the network namespace, with nothing but that
 * loopback, is what keeps the code off every network. Node 24 knows no such flag.
 */
const NET_PERMISSION = Number(process.versions.node.split('.')[0]) >= 25 ? ['--allow-net'] : [];

/**
 * Runs a caller's Playwright code for `language: "node"` in a child Node process that has no network but a
 * relay to its session's filtered CDP (runner.ts): PID, network, mount, IPC and UTS namespaces of its own
 * (isolation.ts), a chroot of read-only system files, no capability, user 65534 when the service is root, kernel
 * limits on memory, CPU time, tasks and open files, an empty environment, and Node's permission model (reads of
 * the runner and playwright-core, writes to the private /tmp only; no child processes, workers, addons, WASI or
 * inspector). Everything in it is killed at the deadline.
 */
export class NodeSandbox {
  private probed: Promise<{ mode: IsolationMode } | { missing: string }> | null = null;
  private readonly tools = findTools();
  private readonly node = realpathSync(process.execPath);
  private readonly playwright = path.dirname(
    realpathSync(createRequire(import.meta.url).resolve('playwright-core/package.json')),
  );

  constructor(private readonly limits: SandboxLimits) {}

  /** Throws a 503 saying what is missing when this machine cannot build the sandbox (probed once). */
  async ensureAvailable(): Promise<IsolationMode> {
    this.probed ??= this.probe();
    const probed = await this.probed;
    if ('mode' in probed) return probed.mode;
    throw new ServiceUnavailableError(
      `language "node" needs util-linux (unshare with PID, network and mount namespaces: as root with ` +
        `CAP_SYS_ADMIN or else unprivileged user namespaces; setpriv; prlimit) and iproute2 on this server, ` +
        `and they do not work here: ${probed.missing}. language "bash" is available`,
    );
  }

  async run(options: NodeRunOptions): Promise<NodeRunOutput> {
    const mode = await this.ensureAvailable();
    // The wall-clock deadline kills first; the CPU limit also holds should that kill never come.
    const cpuSeconds = Math.min(this.limits.cpuSeconds, Math.ceil(options.deadline.remainingMs() / 1000) + 1);
    const limits = { ...this.limits, cpuSeconds };
    const work = makeWork();
    try {
      const runner = path.join(work, 'runner', 'runner.mjs');
      writeFileSync(runner, RUNNER_SOURCE);
      chmodSync(runner, 0o644);
      const entry = path.join(this.playwright, 'index.mjs');
      const child = this.spawn(mode, work, limits, [
        `--max-old-space-size=${heapMegabytes(limits)}`,
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
      return await this.collect(child, options, limits);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }

  private spawn(mode: IsolationMode, work: string, limits: SandboxLimits, nodeArgs: string[]): ChildProcess {
    const binds = [path.dirname(this.node), this.playwright, path.join(work, 'runner')];
    const root = path.join(work, 'root');
    const { file, args } = jailCommand(mode, this.tools, { root, binds, node: this.node, nodeArgs, limits });
    return spawn(file, args, {
      env: {},
      cwd: work,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe', 'pipe', 'pipe'],
    });
  }

  /** The first mode in which a trivial program runs and can read playwright-core, or why none does. */
  private async probe(): Promise<{ mode: IsolationMode } | { missing: string }> {
    const absent = UTILS.filter((u) => !this.tools[u]);
    if (absent.length > 0) return { missing: `${absent.join(', ')} not found in ${DIRS.join(', ')}` };
    const failures: string[] = [];
    for (const mode of modesFor(process.getuid?.() ?? -1)) {
      const why = await this.tryMode(mode);
      if (why === null) return { mode };
      failures.push(`${mode === 'root' ? 'as root' : 'in a user namespace'}: ${why}`);
    }
    return { missing: failures.join('; ') };
  }

  private async tryMode(mode: IsolationMode): Promise<string | null> {
    const work = makeWork();
    try {
      const entry = path.join(this.playwright, 'index.mjs');
      const child = this.spawn(mode, work, this.limits, [
        '--permission',
        `--allow-fs-read=${this.playwright}`,
        '-e',
        `require('node:fs').accessSync(${JSON.stringify(entry)}, 4)`,
      ]);
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
      return code === 0 ? null : (failureLine(stderr) ?? `exit ${code}`);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }

  private async collect(
    child: ChildProcess,
    options: NodeRunOptions,
    limits: SandboxLimits,
  ): Promise<NodeRunOutput> {
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
      child.on('close', (code, signal) =>
        resolve(code ?? (signal ? 128 + os.constants.signals[signal] : null)),
      );
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
    const exitCode = exit ?? 1;
    return {
      stdout: stdout.text(),
      stderr: stderr.text() + (limitMessage(exitCode, limits) ?? ''),
      exitCode,
      result: result.text() || null,
    };
  }
}

/** A private folder for one run: `root` (the mount point) and `runner`, reachable by the sandbox's user. */
function makeWork(): string {
  const work = mkdtempSync(path.join(os.tmpdir(), 'pagewright-code-'));
  // mkdtemp makes it 0700; user 65534 must pass through it to the runner (its name stays unlisted).
  chmodSync(work, 0o711);
  mkdirSync(path.join(work, 'root'));
  mkdirSync(path.join(work, 'runner'));
  chmodSync(path.join(work, 'runner'), 0o755);
  return work;
}

/** The line of a failed probe's stderr that says why (an error line rather than a stack frame). */
function failureLine(stderr: string): string | null {
  const lines = stderr
    .split('\n')
    .map((line) => line.replace(/^#\s*/, '').trim())
    .filter(Boolean);
  const line =
    lines.find((l) => /fatal|error|fail|denied|not permitted|cannot|no such/i.test(l)) ?? lines.at(-1);
  return line ? line.slice(0, 300) : null;
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
