import { Worker } from 'node:worker_threads';
import { BlockFailure } from './blockFailure.ts';
import type { CodeSandboxLimits } from './codeSandbox.ts';

/**
 * Code blocks run in worker threads, never on the event loop that serves requests. QuickJS checks
 * its deadline between bytecodes, but a single native operation (growing a huge array near the
 * memory limit, say) can run for seconds without checking; so a worker still busy `graceMs` after
 * its deadline is terminated and replaced. That bound holds whatever the code does.
 */
interface Job {
  id: number;
  code: string;
  input: unknown;
  limits: CodeSandboxLimits;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

interface Slot {
  worker: Worker;
  job: Job | undefined;
  timer: NodeJS.Timeout | undefined;
}

const WORKER_FILE = new URL('./codeSandboxWorkerEntry.mjs', import.meta.url);

export function createCodeSandbox(defaults: CodeSandboxLimits, options: { size?: number; graceMs?: number } = {}) {
  const size = options.size ?? 2;
  const graceMs = options.graceMs ?? 500;
  const slots: Slot[] = [];
  const queue: Job[] = [];
  let nextId = 1;
  let closed = false;

  function spawn(): Slot {
    const worker = new Worker(WORKER_FILE, {
      // Extra guard besides QuickJS's own limit: the worker's V8 heap.
      resourceLimits: { maxOldGenerationSizeMb: Math.max(64, defaults.memoryMb * 2) },
    });
    const slot: Slot = { worker, job: undefined, timer: undefined };
    worker.on('message', (reply: { id: number; ok: boolean; value?: unknown; message?: string }) => {
      const job = slot.job;
      if (!job || job.id !== reply.id) return;
      finish(slot);
      if (reply.ok) job.resolve(reply.value);
      else job.reject(new BlockFailure('CODE_BLOCK_FAILED', reply.message ?? 'code block failed'));
    });
    worker.on('error', (error) => replace(slot, new BlockFailure('CODE_BLOCK_FAILED', `code block failed: ${error.message}`)));
    worker.on('exit', () => {
      if (!closed && slot.job) replace(slot, new BlockFailure('CODE_BLOCK_FAILED', 'code block sandbox exited'));
    });
    worker.unref();
    return slot;
  }

  function finish(slot: Slot) {
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = undefined;
    slot.job = undefined;
    setImmediate(dispatch);
  }

  function replace(slot: Slot, failure: Error) {
    const job = slot.job;
    finish(slot);
    void slot.worker.terminate();
    const index = slots.indexOf(slot);
    if (index >= 0 && !closed) slots[index] = spawn();
    job?.reject(failure);
  }

  function dispatch() {
    if (closed) return;
    while (queue.length > 0) {
      let slot = slots.find((s) => !s.job);
      if (!slot && slots.length < size) slots.push((slot = spawn()));
      if (!slot) return;
      const job = queue.shift()!;
      slot.job = job;
      const busy = slot;
      slot.timer = setTimeout(
        () => replace(busy, new BlockFailure('CODE_BLOCK_FAILED', `code block exceeded its time limit (${job.limits.timeoutMs} ms)`)),
        job.limits.timeoutMs + graceMs,
      );
      slot.worker.postMessage({ id: job.id, code: job.code, input: job.input, limits: job.limits });
    }
  }

  return {
    run(code: string, input: unknown, limits: Partial<CodeSandboxLimits> = {}): Promise<unknown> {
      if (closed) return Promise.reject(new Error('code sandbox closed'));
      return new Promise((resolve, reject) => {
        queue.push({ id: nextId++, code, input, limits: { ...defaults, ...limits }, resolve, reject });
        dispatch();
      });
    },
    async close() {
      closed = true;
      for (const job of queue.splice(0)) job.reject(new Error('code sandbox closed'));
      await Promise.all(slots.map((s) => s.worker.terminate()));
    },
  };
}

export type CodeSandbox = ReturnType<typeof createCodeSandbox>;
