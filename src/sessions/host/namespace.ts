import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { Server } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { sleep } from '../../lib/sleep.js';

/** The util-linux and iproute2 programs a session's namespaces are made with. */
const TOOLS = ['setpriv', 'unshare', 'nsenter', 'ip', 'mount', 'umount', 'pivot_root', 'env', 'sh'] as const;
type Tools = Record<(typeof TOOLS)[number], string>;
const DIRS = ['/usr/bin', '/usr/sbin', '/bin', '/sbin'];

/** nobody/nogroup: a service running as root makes the namespaces as this user, never as root. */
const NOBODY = 65534;

/** What the namespaces are made of: a tmpfs of this size is the browser's whole writable disk. */
export interface NamespaceOptions {
  diskBytes: number;
  /**
   * The port the listener takes on the namespace's loopback: the guarded proxy's own port on the service's, so
   * that one proxy URL means the same proxy to the browser and to Playwright's requests made from the service.
   */
  port: number;
  /** Longest wait for the namespaces to be ready. */
  timeoutMs?: number;
}

/**
 * Inside new user, network, mount and PID namespaces (as their root): brings the namespace's own loopback up;
 * builds a root of a fresh tmpfs with the system's programs and libraries (/usr and its links), the few files
 * of /etc Chromium reads (fonts, its own settings, the library cache), four device files and a /proc of the
 * namespace's own processes; starts the listener helper (the proxy's port, see LISTENER), which runs on the
 * host's files before the switch; then makes that tmpfs the namespace's root (pivot_root, the host's root
 * unmounted) and waits as the namespace's init. No file of the host but the system's is left to reach, and the
 * only way out is the listener the service holds.
 */
const SETUP = `set -e
PATH=/usr/sbin:/usr/bin:/sbin:/bin
root=$1; size=$2; node=$3; listener=$4; port=$5
ip link set lo up
mount -t tmpfs -o size=$size,mode=755 pagewright-session "$root"
bind() { mkdir -p "$root$1"; mount --rbind "$1" "$root$1"; mount -o remount,bind,ro "$root$1"; }
bindfile() { touch "$root$1"; mount --bind "$1" "$root$1"; mount -o remount,bind,ro "$root$1"; }
bind /usr
for d in bin sbin lib lib32 lib64 libx32; do
  if [ -L "/$d" ]; then ln -s "$(readlink "/$d")" "$root/$d"; elif [ -d "/$d" ]; then bind "/$d"; fi
done
mkdir -p "$root/etc" "$root/dev" "$root/proc" "$root/var/cache" "$root/old-root"
for d in fonts chromium chromium.d alternatives; do if [ -d "/etc/$d" ]; then bind "/etc/$d"; fi; done
for f in ld.so.cache localtime; do if [ -f "/etc/$f" ]; then bindfile "/etc/$f"; fi; done
if [ -d /var/cache/fontconfig ]; then bind /var/cache/fontconfig; fi
echo 'root:x:0:0:root:/tmp:/bin/sh' > "$root/etc/passwd"
echo 'root:x:0:' > "$root/etc/group"
for f in null zero random urandom; do touch "$root/dev/$f"; mount --bind "/dev/$f" "$root/dev/$f"; done
ln -s /proc/self/fd "$root/dev/fd"
mkdir -m 1777 "$root/tmp" "$root/dev/shm"
mount -t proc proc "$root/proc"
"$node" -e "$listener" "$port"
cd "$root"
pivot_root . old-root
umount -l /old-root
rmdir /old-root
exec /usr/bin/sleep infinity`;

/**
 * Run by the service's Node inside the network namespace: listens on the namespace's 127.0.0.1 and hands the
 * listening socket to the service over the IPC channel (the kernel passes the descriptor; the socket stays in
 * the namespace it was made in), then exits.
 */
const LISTENER = `const s = require('node:net').createServer();
s.listen(Number(process.argv[1]), '127.0.0.1', () => process.send({ port: s.address().port }, s, () => { s.close(); process.disconnect(); }));`;

function which(name: string): string | null {
  for (const dir of DIRS) {
    const file = path.join(dir, name);
    if (existsSync(file)) return file;
  }
  return null;
}

/** A session's namespaces, ready for its Chromium. */
export interface SessionNamespace {
  /** Listening on the namespace's 127.0.0.1:`port`: the browser's proxy. Held by the service. */
  listener: Server;
  port: number;
  /** The program and arguments that run a command inside the namespaces, at their root, in /tmp. */
  enter(command: string, args: string[]): { file: string; args: string[] };
  /** Kills every process of the namespaces (the init's death takes them all) and frees the mount point. */
  close(): void;
}

/**
 * Makes the namespaces one browser session's Chromium runs in: its own network (nothing but the listener on its
 * loopback), files (a tmpfs root of system files) and processes. A service running as root makes them as user
 * 65534; the namespaces and what runs in them die with the service (`--pdeathsig`).
 */
export class SessionNamespaces {
  private readonly tools: Partial<Tools>;
  private probed: Promise<string | null> | null = null;

  constructor(private readonly node: string = process.execPath) {
    this.tools = Object.fromEntries(TOOLS.map((t) => [t, which(t)]));
  }

  /** Null when namespaces can be made here, else why not (probed once, by making one). */
  unavailable(): Promise<string | null> {
    this.probed ??= this.probe();
    return this.probed;
  }

  async create(options: NamespaceOptions): Promise<SessionNamespace> {
    const t = this.tools as Tools;
    const mountPoint = mkdtempSync(path.join(os.tmpdir(), 'pagewright-session-'));
    const asNobody =
      process.getuid?.() === 0 ? [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups'] : [];
    const unshare = [
      t.unshare,
      '--user',
      '--map-root-user',
      '--net',
      '--mount',
      '--pid',
      '--fork',
      '--kill-child',
    ];
    const setup = [
      t.sh,
      '-c',
      SETUP,
      'sh',
      mountPoint,
      String(options.diskBytes),
      this.node,
      LISTENER,
      String(options.port),
    ];
    const child = spawn(t.setpriv, [...asNobody, '--pdeathsig=SIGKILL', '--', ...unshare, '--', ...setup], {
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      env: {},
      detached: true,
    });
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString('utf8')).slice(-2000)));
    const close = (): void => {
      kill(child);
      rmSync(mountPoint, { recursive: true, force: true });
    };
    try {
      const { port, listener } = await handOver(child, options.timeoutMs ?? 20_000, () => stderr);
      const init = await initOf(child, () => stderr);
      return {
        listener,
        port,
        enter: (command, args) => ({
          file: t.nsenter,
          args: [
            `--target=${init}`,
            '--user',
            '--net',
            '--mount',
            '--pid',
            '--root',
            '--',
            t.env,
            '-C',
            '/tmp',
            command,
            ...args,
          ],
        }),
        close: () => {
          listener.close();
          close();
        },
      };
    } catch (err) {
      close();
      throw err;
    }
  }

  private async probe(): Promise<string | null> {
    const missing = TOOLS.filter((name) => !this.tools[name]);
    if (missing.length > 0) return `${missing.join(', ')} not found in ${DIRS.join(', ')}`;
    try {
      const ns = await this.create({ diskBytes: 1 << 20, port: 0 });
      ns.close();
      return null;
    } catch (err) {
      return err instanceof Error ? err.message : String(err);
    }
  }
}

/** The listening socket the helper hands over, or why the namespaces could not be made. */
function handOver(
  child: ChildProcess,
  timeoutMs: number,
  stderr: () => string,
): Promise<{ port: number; listener: Server }> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(`not ready within ${timeoutMs} ms`), timeoutMs);
    const fail = (why: string): void => {
      clearTimeout(timer);
      const detail = stderr().trim().split('\n').slice(-2).join(' ');
      reject(new Error(`the session's namespaces could not be made: ${why}${detail ? `: ${detail}` : ''}`));
    };
    child.once('error', (err) => fail(err.message));
    child.once('exit', (code, signal) => fail(`exit ${signal ?? code}`));
    child.once('message', (message: { port?: unknown }, handle: unknown) => {
      clearTimeout(timer);
      child.removeAllListeners('exit');
      child.disconnect();
      const port = Number(message?.port);
      if (!handle || !Number.isInteger(port)) return fail('no listening socket came back');
      resolve({ port, listener: handle as Server });
    });
  });
}

/** The namespace's init (unshare's child), once it waits: the process other commands enter the namespaces by. */
async function initOf(child: ChildProcess, stderr: () => string): Promise<number> {
  for (let tries = 0; tries < 400; tries++) {
    if (child.exitCode !== null || child.signalCode !== null) break;
    try {
      const unshare = readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim();
      const init = Number(unshare.split(' ')[0]);
      if (init && readFileSync(`/proc/${init}/cmdline`, 'utf8').startsWith('/usr/bin/sleep')) return init;
    } catch {
      // Not started yet.
    }
    await sleep(5);
  }
  throw new Error(`the session's namespaces did not start: ${stderr().trim().slice(-300)}`);
}

function kill(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}
