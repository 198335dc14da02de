import { fork } from 'node:child_process';

/**
 * Runs a bench peer in a process of its own and answers what it sends back. A peer's driver may
 * change process-wide state (Emmett's PostgreSQL driver sets global `pg` type parsers, which turned
 * an all-digit API key id into a BigInt and stalled a projection when it ran in the bench's own
 * process); in a child, nothing it changes reaches our measurements. The child answers over IPC
 * (`{result}` or `{error}`) within `deadlineMs`, or is killed and the wait fails naming `what`.
 */
export function inOwnProcess<T>(module: URL, args: string[], deadlineMs: number, what: string): Promise<T> {
  const child = fork(module, args, { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${what}: no answer after ${deadlineMs / 1000} s`));
    }, deadlineMs);
    const settle = (done: () => void) => {
      clearTimeout(timer);
      done();
    };
    child.once('message', (message: { result?: T; error?: string }) => settle(() => (message.error === undefined ? resolve(message.result as T) : reject(new Error(`${what}: ${message.error}`)))));
    child.once('error', (error) => settle(() => reject(error)));
    child.once('exit', (code, signal) => settle(() => reject(new Error(`${what}: the process exited (${signal ?? code}) without an answer`))));
  });
}

/** The child's side: runs `work` and sends its result (or its error) to the parent, then exits. */
export async function answerParent<T>(work: () => Promise<T>): Promise<void> {
  try {
    const result = await work();
    process.send!({ result }, () => process.exit(0));
  } catch (error) {
    process.send!({ error: error instanceof Error ? error.stack ?? error.message : String(error) }, () => process.exit(1));
  }
}
