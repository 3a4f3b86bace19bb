import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import type { CdpMessage } from '../cdp-filter.js';

/** Bytes of one CDP message from Chromium at most: a full-page screenshot fits; a runaway page does not. */
const MAX_MESSAGE_BYTES = 256 * 1024 * 1024;

/** Chromium started with `--remote-debugging-pipe`: its CDP on fds 3 (to it) and 4 (from it), NUL-separated JSON. */
export interface ChromiumPipe {
  send(message: CdpMessage): void;
  /** Every message Chromium sends, in order. */
  onmessage: ((message: CdpMessage) => void) | null;
  /** Once, when the pipe or the process ends: why (an exit code or signal). */
  readonly exited: Promise<string>;
  readonly pid: number | undefined;
  /** Kills the process group (the browser with its renderers and helpers). */
  kill(): void;
}

/**
 * Starts Chromium (`command`, directly or through the namespace's nsenter) as the leader of a process group of
 * its own, its DevTools on a pipe: no TCP port is opened, and only this process holds the pipe's ends.
 */
export function startChromium(file: string, args: string[], env: NodeJS.ProcessEnv): ChromiumPipe {
  const child = spawn(file, args, {
    stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'],
    env,
    detached: true,
  });
  // Chromium's own log: read so the pipe never fills, kept as the last lines for the exit's reason.
  let log = '';
  child.stderr?.on('data', (d: Buffer) => (log = (log + d.toString('utf8')).slice(-4000)));
  const write = child.stdio[3] as Writable;
  const read = child.stdio[4] as Readable;
  write.on('error', () => undefined);
  read.on('error', () => undefined);
  let done: (why: string) => void = () => undefined;
  const exited = new Promise<string>((resolve) => (done = resolve));
  let ended = false;
  const end = (why: string): void => {
    if (ended) return;
    ended = true;
    done(why);
    kill(child);
  };
  child.once('error', (err) => end(`Chromium did not start: ${err.message}`));
  child.once('exit', (code, signal) =>
    end(signal ? `Chromium was killed (${signal})` : `Chromium exited (${code})`),
  );
  read.once('close', () => end('Chromium closed its DevTools pipe'));

  const pipe: ChromiumPipe = {
    onmessage: null,
    exited,
    pid: child.pid,
    send(message) {
      if (ended) return;
      write.write(JSON.stringify(message));
      write.write('\0');
    },
    kill: () => end('Chromium was closed'),
  };
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  read.on('data', (chunk: Buffer) => {
    let start = 0;
    for (let end0 = chunk.indexOf(0, start); end0 !== -1; end0 = chunk.indexOf(0, start)) {
      pending.push(chunk.subarray(start, end0));
      const text = Buffer.concat(pending).toString('utf8');
      pending = [];
      pendingBytes = 0;
      start = end0 + 1;
      let message: CdpMessage;
      try {
        message = JSON.parse(text) as CdpMessage;
      } catch {
        return end('Chromium sent a message that is not JSON');
      }
      pipe.onmessage?.(message);
    }
    if (start < chunk.length) {
      pending.push(chunk.subarray(start));
      pendingBytes += chunk.length - start;
      if (pendingBytes > MAX_MESSAGE_BYTES) end('Chromium sent a message over 256 MiB');
    }
  });
  return pipe;
}

function kill(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}
