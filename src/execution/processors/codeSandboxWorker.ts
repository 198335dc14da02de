import { parentPort } from 'node:worker_threads';
import { prepareSandbox, runCode } from './codeSandbox.ts';

// One sandbox worker: runs code blocks one at a time. The pool kills it if a run overstays its
// deadline. It says it is ready once QuickJS is loaded: a block's time limit never pays for the start.
parentPort!.on('message', async (job: { id: number; code: string; input: unknown; limits: { timeoutMs: number; memoryMb: number } }) => {
  try {
    const value = await runCode(job.code, job.input, job.limits);
    parentPort!.postMessage({ id: job.id, ok: true, value });
  } catch (error) {
    parentPort!.postMessage({ id: job.id, ok: false, message: (error as Error).message });
  }
});
await prepareSandbox();
parentPort!.postMessage({ ready: true });
