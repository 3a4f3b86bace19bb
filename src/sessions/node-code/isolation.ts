import { existsSync } from 'node:fs';
import path from 'node:path';

/** The kernel limits of one run of caller code (BROWSER_CODE_MEMORY_BYTES, BROWSER_CODE_CPU_SECONDS). */
export interface SandboxLimits {
  /** RLIMIT_DATA of the code's Node process: every private writable mapping, Buffers and V8 heap alike. */
  memoryBytes: number;
  /** RLIMIT_CPU of the code's Node process, all its threads together. */
  cpuSeconds: number;
}

/**
 * How the namespaces are made. `root` (the service runs as root with CAP_SYS_ADMIN): PID, network, mount,
 * IPC and UTS namespaces and no user namespace; the code runs as the unprivileged host user 65534 with no
 * capability. `userns`: the same inside a user namespace of its own, which a service running as root makes
 * as user 65534 (setpriv), so neither the namespace nor the code in it is root's; any other service user
 * makes it as itself.
 */
export type IsolationMode = 'root' | 'userns';

/** nobody/nogroup: the unprivileged host user the code runs as when the service is root. */
export const SANDBOX_UID = 65534;
export const SANDBOX_GID = 65534;
/**
 * Tasks of the code's user (threads count; Node has about a dozen) and open files of its process. The tasks
 * count per user, so in `root` mode all runs share it (as user 65534), in `userns` mode each run has its own.
 */
const MAX_TASKS = 1024;
const MAX_OPEN_FILES = 256;

export const UTILS = ['unshare', 'setpriv', 'prlimit', 'ip', 'mount', 'chroot', 'env', 'sh'] as const;
export const DIRS = ['/usr/bin', '/usr/sbin', '/bin', '/sbin'];
export type Tools = Record<(typeof UTILS)[number], string | null>;

export function findTools(): Tools {
  return Object.fromEntries(UTILS.map((u) => [u, which(u)])) as Tools;
}

function which(name: string): string | null {
  for (const dir of DIRS) {
    const file = path.join(dir, name);
    if (existsSync(file)) return file;
  }
  return null;
}

/** The modes to try, best first: a container's root may lack the CAP_SYS_ADMIN that `root` mode needs. */
export function modesFor(uid: number): IsolationMode[] {
  return uid === 0 ? ['root', 'userns'] : ['userns'];
}

/**
 * Inside the new namespaces, as their root: brings the network namespace's own loopback up, builds a root of
 * a fresh 8 MB tmpfs (its /tmp the only place to write) with /usr (and /bin, /lib, ... as the host has them)
 * and the given directories bound read-only, and chroots there. No /proc is mounted: neither Node nor
 * Playwright needs one. `$@` (see `jailCommand`) then drops every capability (in `root` mode, also becomes
 * user 65534) and starts the PID namespace's init (INIT).
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
exec "$(command -v chroot)" "$root" "$@"`;

/**
 * The PID namespace's init, a shell that runs Node (with an empty environment but HOME=/, which Playwright
 * reads, under its limits) and exits with its status, 128 + the signal when one ended it. Node is not the
 * init itself: an init ignores the signals it has no handler for, SIGXCPU and abort's SIGABRT among them.
 * When the init ends, the kernel kills whatever else is left in the namespace.
 */
const INIT = '"$@"; exit $?';

export interface JailSpec {
  /** The mount point of the private root (an empty directory). */
  root: string;
  /** Host directories bound read-only at the same path inside. */
  binds: string[];
  node: string;
  nodeArgs: string[];
  limits: SandboxLimits;
}

/** The command line that runs `node nodeArgs` in the sandbox of `mode`; every tool must be present. */
export function jailCommand(
  mode: IsolationMode,
  tools: Tools,
  spec: JailSpec,
): { file: string; args: string[] } {
  const t = tools as Record<(typeof UTILS)[number], string>;
  const asNobody = [`--reuid=${SANDBOX_UID}`, `--regid=${SANDBOX_GID}`, '--clear-groups'];
  const root = mode === 'root';
  // The kernel forgets unshare's --kill-child when the init's user changes; `keep` sets it again.
  const drop = [
    ...(root ? asNobody : []),
    ...['--inh-caps=-all', '--bounding-set=-all', '--no-new-privs', '--pdeathsig=keep'],
  ];
  const { memoryBytes, cpuSeconds } = spec.limits;
  const limits = [
    `--data=${memoryBytes}:${memoryBytes}`,
    // SIGXCPU at the soft limit; SIGKILL a second later, should the code catch SIGXCPU.
    `--cpu=${cpuSeconds}:${cpuSeconds + 1}`,
    `--nproc=${MAX_TASKS}:${MAX_TASKS}`,
    `--nofile=${MAX_OPEN_FILES}:${MAX_OPEN_FILES}`,
    '--core=0:0',
  ];
  const init = [t.setpriv, ...drop, '--', t.sh, '-c', INIT, 'sh'];
  const node = [t.env, '-i', 'HOME=/', t.prlimit, ...limits, '--', spec.node, ...spec.nodeArgs];
  const args = [
    ...(root ? [] : ['--user', '--map-root-user']),
    ...['--pid', '--fork', '--kill-child', '--net', '--mount', '--ipc', '--uts'],
    ...['--', t.sh, '-c', SETUP, 'sh', t.ip, spec.root, ...spec.binds, '--'],
    ...init,
    ...node,
  ];
  // unshare dies with the service (and the init with unshare, --kill-child), so a service that crashed leaves
  // no run behind; a service running as root makes a user namespace as user 65534, never as root.
  const becomeNobody = !root && process.getuid?.() === 0 ? asNobody : [];
  return { file: t.setpriv, args: [...becomeNobody, '--pdeathsig=SIGKILL', '--', t.unshare, ...args] };
}

/** The V8 heap's ceiling: half the memory limit, so Buffers keep room of their own. */
export function heapMegabytes(limits: SandboxLimits): number {
  return Math.max(64, Math.floor(limits.memoryBytes / 2 / (1024 * 1024)));
}

/** What the sandbox's exit code says of the CPU limit having ended the code, or null. */
export function limitMessage(exitCode: number, limits: SandboxLimits): string | null {
  if (exitCode === 128 + 24) return `The code used its ${limits.cpuSeconds} s of CPU time and was stopped\n`;
  return null;
}
