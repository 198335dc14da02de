import { ApiError } from '../domain/errors/apiError.ts';

/**
 * The synchronous runs (/execute, /step) this process is running for callers, so a shutdown can
 * end them cleanly: after the grace period, each still running is recorded as failed
 * (RUN_INTERRUPTED) and its caller, if still waiting, is answered 503 instead of a cut connection.
 */
export function createRunLifecycle() {
  const active = new Set<string>();
  // One interruption per tracked run, dropped when the run ends. (Racing every run against one
  // shared, never-settling promise would leave a reaction on it per run: memory growing with runs.)
  const interrupts = new Set<(error: ApiError) => void>();
  let interrupted: ApiError | undefined;

  return {
    /** Runs `start` as a tracked sync run; settles with its outcome, or with RUN_INTERRUPTED at shutdown. */
    async track<T>(executionId: string, start: () => Promise<T>): Promise<T> {
      active.add(executionId);
      let interrupt!: (error: ApiError) => void;
      const interruption = new Promise<never>((_resolve, reject) => (interrupt = (error) => reject(new ApiError(error.code, error.message, { executionId }))));
      interruption.catch(() => undefined);
      if (interrupted) interrupt(interrupted);
      else interrupts.add(interrupt);
      try {
        return await Promise.race([start(), interruption]);
      } finally {
        interrupts.delete(interrupt);
        active.delete(executionId);
      }
    },
    /** Tracks a run that outlives its request (a /step stream's run). */
    follow(executionId: string, outcome: Promise<unknown>) {
      active.add(executionId);
      void outcome.finally(() => active.delete(executionId)).catch(() => undefined);
    },
    active: () => [...active],
    /** Answers every tracked caller with RUN_INTERRUPTED (the runs themselves are recorded as failed by the caller of this). */
    interruptAll(message: string) {
      interrupted = new ApiError('RUN_INTERRUPTED', message);
      for (const interrupt of interrupts) interrupt(interrupted);
    },
  };
}

export type RunLifecycle = ReturnType<typeof createRunLifecycle>;
