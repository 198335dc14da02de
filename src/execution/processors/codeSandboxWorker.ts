import { parentPort } from 'node:worker_threads';
import { prepareSandbox, runCode, sandboxLoaded } from './codeSandbox.ts';

// One sandbox worker: runs code blocks one at a time. The pool kills it if a run overstays its
// deadline. It says it is ready once QuickJS is loaded: a block's time limit never pays for the start.
// A failed run drops the module (it may be corrupt): the worker says so with its answer
// (`reloading`), loads a fresh one, and says it is ready again, so the next block's time limit never
// pays for that either (on a loaded machine, more than the limit itself).
parentPort!.on('message', async (job: { id: number; code: string; input: unknown; limits: { timeoutMs: number; memoryMb: number } }) => {
  try {
    const value = await runCode(job.code, job.input, job.limits);
    parentPort!.postMessage({ id: job.id, ok: true, value });
  } catch (error) {
    const reloading = !sandboxLoaded();
    const detail = (error as { detail?: unknown }).detail;
    parentPort!.postMessage({ id: job.id, ok: false, message: (error as Error).message, detail: typeof detail === 'string' ? detail : null, reloading });
    if (reloading) {
      await prepareSandbox();
      parentPort!.postMessage({ ready: true });
    }
  }
});
await prepareSandbox();
parentPort!.postMessage({ ready: true });
