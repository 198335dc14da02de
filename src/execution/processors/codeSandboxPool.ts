import { Worker } from 'node:worker_threads';
import { unstorableJson } from '../../domain/validation/storableJson.ts';
import { BlockFailure } from './blockFailure.ts';
import { failureText } from '../../domain/execution/failureMessage.ts';
import type { CodeSandboxLimits } from './codeSandbox.ts';
import { createFairQueue } from './fairQueue.ts';

/**
 * Code blocks run in worker threads, never on the event loop that serves requests. QuickJS checks
 * its deadline between bytecodes, but a single native operation (growing a huge array near the
 * memory limit, say) can run for seconds without checking; so a worker still busy `graceMs` after
 * its deadline is terminated and replaced. That bound holds whatever the code does.
 *
 * Organizations share the workers fairly: one organization runs on at most `size - 1` workers at
 * once (so another always finds one free), waiting blocks are taken round-robin across
 * organizations, and each organization's queue, and the whole queue, are bounded: a full queue fails
 * the block with CODE_SANDBOX_BUSY (503) instead of growing without end.
 */
export interface CodeSandboxOptions {
  size?: number;
  /** The worker's module (tests: one that starts slowly). */
  workerFile?: URL;
  graceMs?: number;
  /** Largest output, as JSON text, that a block may return. */
  maxOutputBytes?: number;
  maxQueuedPerOwner?: number;
  maxQueued?: number;
}

interface Job {
  id: number;
  owner: string;
  code: string;
  input: unknown;
  limits: CodeSandboxLimits;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

interface Slot {
  worker: Worker;
  /** The worker said it is ready (QuickJS loaded, again after a failed run): only then is a job handed to it and its deadline counted. */
  ready: boolean;
  job: Job | undefined;
  timer: NodeJS.Timeout | undefined;
}

// Compiled (dist/), the worker is plain JavaScript; from the TypeScript sources, a small entry first
// gives the worker thread a TypeScript loader where the runtime has none.
const WORKER_FILE = import.meta.url.endsWith('.ts') ? new URL('./codeSandboxWorkerEntry.mjs', import.meta.url) : new URL('./codeSandboxWorker.js', import.meta.url);

export function createCodeSandbox(defaults: CodeSandboxLimits, options: CodeSandboxOptions = {}) {
  const size = options.size ?? 2;
  const graceMs = options.graceMs ?? 500;
  const maxOutputBytes = options.maxOutputBytes ?? 1024 * 1024;
  const slots: Slot[] = [];
  const queue = createFairQueue<Job>({ maxRunningPerOwner: Math.max(1, size - 1), maxQueuedPerOwner: options.maxQueuedPerOwner ?? 64, maxQueued: options.maxQueued ?? 512 });
  let nextId = 1;
  let closed = false;

  function spawn(): Slot {
    // Extra guard besides QuickJS's own limit: the worker's V8 heap.
    const worker = new Worker(options.workerFile ?? WORKER_FILE, { resourceLimits: { maxOldGenerationSizeMb: Math.max(64, defaults.memoryMb * 2) } });
    const slot: Slot = { worker, ready: false, job: undefined, timer: undefined };
    worker.on('message', (reply: SandboxReply | { ready: true }) => {
      if ('ready' in reply) {
        slot.ready = true;
        dispatch();
        return;
      }
      const job = slot.job;
      if (!job || job.id !== reply.id) return;
      // A worker whose run failed loads a fresh QuickJS first: no block is handed to it until it says it is ready again.
      if (reply.reloading) slot.ready = false;
      finish(slot);
      settle(job, reply, maxOutputBytes);
    });
    worker.on('error', (error) => replace(slot, new BlockFailure('CODE_BLOCK_FAILED', 'code block failed', { detail: error.message })));
    worker.on('exit', () => {
      if (!closed) replace(slot, new BlockFailure('CODE_BLOCK_FAILED', 'code block sandbox exited'));
    });
    worker.unref();
    return slot;
  }

  function finish(slot: Slot) {
    if (slot.timer) clearTimeout(slot.timer);
    if (slot.job) queue.done(slot.job.owner);
    slot.timer = undefined;
    slot.job = undefined;
    setImmediate(dispatch);
  }

  /**
   * A worker that failed goes (the next dispatch starts another if blocks wait), and its job fails.
   * One that never started fails the oldest waiting block in its place: a sandbox that cannot start
   * fails blocks one by one rather than being started again forever.
   */
  function replace(slot: Slot, failure: BlockFailure) {
    const index = slots.indexOf(slot);
    if (index < 0) return;
    slots.splice(index, 1);
    void slot.worker.terminate();
    const job = slot.job;
    finish(slot);
    if (slot.ready) {
      job?.reject(failure);
      return;
    }
    const waiting = queue.take();
    if (!waiting) return;
    queue.done(waiting.owner);
    waiting.reject(new BlockFailure('CODE_BLOCK_FAILED', 'the code sandbox could not start', { detail: failureText(failure) }));
  }

  function dispatch() {
    if (closed) return;
    for (;;) {
      const slot = slots.find((s) => s.ready && !s.job);
      if (!slot) {
        // Workers for the blocks waiting beyond those already starting, up to the pool's size.
        const starting = slots.filter((s) => !s.ready).length;
        const wanted = Math.min(size - slots.length, queue.size() - starting);
        for (let i = 0; i < wanted; i++) slots.push(spawn());
        return;
      }
      const job = queue.take();
      if (!job) return;
      assign(slot, job, graceMs, () => replace(slot, new BlockFailure('CODE_BLOCK_FAILED', `code block exceeded its time limit (${job.limits.timeoutMs} ms)`)));
    }
  }

  return {
    /** Code blocks waiting for a worker. */
    queued: () => queue.size(),
    /** Runs a block for `owner` (an organization); resolves with its plain-JSON output. */
    run(code: string, input: unknown, owner: string, limits: Partial<CodeSandboxLimits> = {}): Promise<unknown> {
      if (closed) return Promise.reject(new Error('code sandbox closed'));
      return new Promise((resolve, reject) => {
        const refusal = queue.add(owner, { id: nextId++, owner, code, input, limits: { ...defaults, ...limits }, resolve, reject });
        if (refusal) return reject(new BlockFailure('CODE_SANDBOX_BUSY', `code blocks are queued to the limit (${refusal}); try again shortly`));
        dispatch();
      });
    },
    async close() {
      closed = true;
      for (const job of queue.drain()) job.reject(new Error('code sandbox closed'));
      for (const slot of slots) slot.job?.reject(new Error('code sandbox closed'));
      await Promise.all(slots.map((s) => s.worker.terminate()));
    },
  };
}

export type CodeSandbox = ReturnType<typeof createCodeSandbox>;

/** Hands a job to an idle worker, with a deadline a little past the job's own limit (QuickJS's interrupt comes first). */
function assign(slot: Slot, job: Job, graceMs: number, timedOut: () => void) {
  slot.job = job;
  slot.timer = setTimeout(timedOut, job.limits.timeoutMs + graceMs);
  slot.worker.postMessage({ id: job.id, code: job.code, input: job.input, limits: job.limits });
}

interface SandboxReply {
  id: number;
  ok: boolean;
  value?: string;
  message?: string;
  /** What came from the block's code (its thrown text), apart from the service's words. */
  detail?: string | null;
  /** The run failed and the worker is loading a fresh QuickJS: it says `ready` again when it has. */
  reloading?: boolean;
}

/** A job's outcome from its worker's reply. */
function settle(job: Job, reply: SandboxReply, maxOutputBytes: number) {
  if (!reply.ok) return job.reject(new BlockFailure('CODE_BLOCK_FAILED', reply.message ?? 'code block failed', { detail: reply.detail ?? null }));
  try {
    job.resolve(decodeOutput(reply.value ?? 'null', maxOutputBytes));
  } catch (error) {
    job.reject(error as Error);
  }
}

/** The sandbox's JSON text as the block's output: bounded in size, and storable in the log. */
function decodeOutput(json: string, maxBytes: number): unknown {
  const bytes = Buffer.byteLength(json, 'utf8');
  if (bytes > maxBytes) throw new BlockFailure('CODE_OUTPUT_TOO_LARGE', `code block output is ${bytes} bytes of JSON, more than the limit of ${maxBytes} (SEQFLOW_CODE_MAX_OUTPUT_BYTES)`);
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new BlockFailure('CODE_BLOCK_FAILED', 'code block output is not plain JSON');
  }
  const problem = unstorableJson(value, 'output');
  if (problem) throw new BlockFailure('CODE_BLOCK_FAILED', 'code block output cannot be stored', { detail: problem.message });
  return value;
}
