import { type ChildProcess, fork } from 'node:child_process';
import type { LoadRequest } from './executeLoadProcess.ts';

export interface LoadFigures {
  concurrency: number;
  requests: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
}

export interface ToolLoopFigures {
  runs: number;
  roundsPerRun: number;
  roundTrips: number;
  p50Ms: number;
  p99Ms: number;
  lastIterationsUsed: number;
}

/** Waits for the next message of the load process. */
const nextMessage = <T>(child: ChildProcess) =>
  new Promise<T>((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`load process exited (${code})`));
    child.once('exit', onExit);
    child.once('message', (message) => {
      child.off('exit', onExit);
      resolve(message as T);
    });
  });

/**
 * The load generator and the scripted model server in a process of their own (executeLoadProcess.ts),
 * so that they do not share the service's event loop; driven over IPC.
 */
export async function startLoadProcess() {
  const child = fork(new URL('./executeLoadProcess.ts', import.meta.url), { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const { baseUrl } = await nextMessage<{ baseUrl: string }>(child);
  const ask = async <T>(message: object) => {
    child.send(message);
    const reply = await nextMessage<{ type: 'result'; result: T } | { type: 'error'; message: string }>(child);
    if (reply.type === 'error') throw new Error(reply.message);
    return reply.result;
  };
  return {
    /** The scripted model server's base URL, for OPENAI_BASE_URL. */
    modelBaseUrl: baseUrl,
    load: (request: LoadRequest) => ask<LoadFigures>({ type: 'load', ...request }),
    toolLoop: (url: string, key: string, runs: number, rounds: number) => ask<ToolLoopFigures>({ type: 'toolLoop', url, key, runs, rounds }),
    stop: async () => {
      const exited = new Promise((r) => child.once('exit', r));
      child.send({ type: 'stop' });
      await exited;
    },
  };
}
