import { Worker, parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import type { ResourceLimits } from 'node:worker_threads';
import { Gate } from '../lib/gate.js';

export interface WorkerPoolOptions {
  /** The worker's entry: it answers each task it is posted with one `TaskReply`, in turn. */
  file: URL;
  threads: number;
  /** Tasks that may wait for a worker; past it `run` throws ServiceBusyError (the gate's). */
  maxQueue: number;
  resourceLimits: ResourceLimits;
  /** Hears why a worker thread died while it had no task (one that had a task fails with the reason). */
  onIdleWorkerDied?: (reason: unknown) => void;
}

/** How long a slot waits before a new worker when the last one died before answering anything. */
const RESPAWN_DELAY_MS = 1000;

/** What a worker posts back for each task: its value, or what it threw. */
export type TaskReply<T> = { value: T } | { thrown: unknown };

/** A task of the pool; `started` turns true once a worker has it (until then, aborting it just drops it). */
export interface PoolTask<In> {
  input: In;
  started: boolean;
}

interface Job<Out> {
  resolve: (value: Out) => void;
  reject: (reason: unknown) => void;
}

interface Slot<Out> {
  worker: Worker;
  /** Tasks posted to it, counted where the worker waits for the next (serveTasks). */
  posted: Int32Array;
  job: Job<Out> | null;
  /** It answered a task: a worker that dies before that may not start at all, and is not restarted at once. */
  answered: boolean;
}

/** What a slot holds while it waits to start a new worker, so that no task is given to it. */
const PARKED: Job<unknown> = { resolve: () => undefined, reject: () => undefined };

/**
 * A fixed number of worker threads, each given one task at a time; the tasks waiting for one wait at a Gate
 * (bounded, in order). Aborting a task drops it while it waits; once a worker runs it, that worker is ended
 * (nothing else interrupts it) and a new one takes its place, as after a crash or running out of memory,
 * which fail that task alone. A task is one message each way, and a count the worker waits on (serveTasks):
 * piscina's bookkeeping around the same messages cost 60–90 µs of CPU a task (BENCHMARKS.md, "An eighth
 * pass").
 */
export class WorkerPool<In, Out> {
  private readonly slots: Slot<Out>[] = [];
  private readonly gate: Gate;
  private closed = false;

  constructor(private readonly options: WorkerPoolOptions) {
    this.gate = new Gate('content', options.threads, options.maxQueue);
    for (let i = 0; i < options.threads; i++) this.slots.push(this.spawn());
  }

  get threads(): number {
    return this.slots.length;
  }

  get queued(): number {
    return this.gate.waiting;
  }

  async run(task: PoolTask<In>, signal: AbortSignal): Promise<Out> {
    await this.gate.enter(signal);
    try {
      if (this.closed) throw new Error('the worker pool is closed');
      signal.throwIfAborted();
      // The gate lets in no more tasks than there are workers, and a busy worker's slot keeps its job.
      return await this.runOn(
        this.slots.find((slot) => slot.job === null)!,
        task,
        signal,
      );
    } finally {
      this.gate.leave();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const slots = this.slots.splice(0);
    for (const slot of slots) {
      const job = slot.job;
      slot.job = null;
      job?.reject(new Error('the worker pool is closed'));
    }
    await Promise.all(slots.map((slot) => slot.worker.terminate()));
  }

  private runOn(slot: Slot<Out>, task: PoolTask<In>, signal: AbortSignal): Promise<Out> {
    return new Promise<Out>((resolve, reject) => {
      const ended = (): void => {
        // Its worker cannot be interrupted: a new one takes the slot, and the task fails with the abort's reason.
        if (slot.job !== job) return;
        this.retire(slot);
        reject(signal.reason);
      };
      const job: Job<Out> = {
        resolve: (value) => {
          signal.removeEventListener('abort', ended);
          resolve(value);
        },
        reject: (reason) => {
          signal.removeEventListener('abort', ended);
          reject(reason);
        },
      };
      signal.addEventListener('abort', ended, { once: true });
      slot.job = job;
      task.started = true;
      slot.worker.ref();
      slot.worker.postMessage(task.input);
      Atomics.add(slot.posted, 0, 1);
      Atomics.notify(slot.posted, 0, 1);
    });
  }

  private spawn(): Slot<Out> {
    const posted = new Int32Array(new SharedArrayBuffer(4));
    const worker = new Worker(this.options.file, {
      resourceLimits: this.options.resourceLimits,
      workerData: { posted } satisfies TaskSource,
    });
    // An idle worker does not keep the process alive; a busy one does (ref'd while it has a job).
    worker.unref();
    const slot: Slot<Out> = { worker, posted, job: null, answered: false };
    worker.on('message', (reply: TaskReply<Out>) => {
      const job = slot.job;
      slot.job = null;
      slot.answered = true;
      worker.unref();
      if (!job) return;
      if ('value' in reply) job.resolve(reply.value);
      else job.reject(reply.thrown);
    });
    // A crash, running out of memory (ERR_WORKER_OUT_OF_MEMORY) or an exit: its task fails with the reason.
    const gone = (reason: unknown): void => {
      // Ended by the pool, or parked already (a failed worker reports its 'error', then its 'exit').
      if (!this.slots.includes(slot) || slot.job === PARKED) return;
      const job = slot.job;
      if (job === null) this.options.onIdleWorkerDied?.(reason);
      if (job === null && !slot.answered) this.park(slot);
      else this.retire(slot);
      job?.reject(reason);
    };
    worker.on('error', gone);
    worker.on('exit', (code) => gone(new Error(`a worker thread exited with code ${code}`)));
    return slot;
  }

  /**
   * A worker that died idle before answering anything (its script failing to load, say) is replaced after a
   * pause, not in a loop: meanwhile its slot holds one of the gate's places, so no task is given to it.
   */
  private park(slot: Slot<Out>): void {
    slot.job = PARKED;
    void this.gate.enter(); // a place is free: this slot had no task
    void slot.worker.terminate();
    const timer = setTimeout(() => {
      const at = this.slots.indexOf(slot);
      if (at >= 0) this.slots[at] = this.spawn();
      this.gate.leave();
    }, RESPAWN_DELAY_MS);
    timer.unref();
  }

  /** Ends `slot`'s worker and puts a new one in its place (nothing when it was replaced already). */
  private retire(slot: Slot<Out>): void {
    const at = this.slots.indexOf(slot);
    if (at < 0) return;
    slot.job = null;
    this.slots[at] = this.spawn();
    void slot.worker.terminate();
  }
}

/** What a worker of the pool is given: the count of tasks posted to it. */
interface TaskSource {
  posted: Int32Array;
}

/**
 * The worker's side: answers each task posted to it with `handle`'s value (or what it threw), in turn.
 * Between tasks the thread blocks until the next is posted (`Atomics.wait` on the count) instead of going
 * back to its event loop: under load, workers idling in their event loops between tasks cost V8's helper
 * threads 60 % more CPU on large pages (BENCHMARKS.md, "An eighth pass"). The pool ends a worker with
 * `terminate`, which interrupts the wait.
 */
export function serveTasks<In, Out>(handle: (input: In) => Promise<Out>): void {
  const port = parentPort!;
  const { posted } = workerData as TaskSource;
  let seen = 0;
  const reply = (answer: TaskReply<Out>): void => {
    try {
      port.postMessage(answer);
    } catch (err) {
      // What was thrown could not be copied across (it held a function, say): its message still goes.
      port.postMessage({ thrown: new Error(String((answer as { thrown?: unknown }).thrown ?? err)) });
    }
  };
  const run = (input: In): void => {
    handle(input)
      .then(
        (value) => reply({ value }),
        (thrown: unknown) => reply({ thrown }),
      )
      .then(next);
  };
  const next = (): void => {
    for (;;) {
      const entry = receiveMessageOnPort(port);
      if (entry) return run(entry.message as In);
      Atomics.wait(posted, 0, seen);
      seen = Atomics.load(posted, 0);
    }
  };
  // The first task comes as an event: a thread still loading waits in its event loop, not blocked, since a
  // `terminate` that arrives while it loads is lost on a wait entered from its module's top level. The next
  // tasks are taken by `next`, each as soon as the last is answered, so none arrives as an event after it.
  port.on('message', run);
}
