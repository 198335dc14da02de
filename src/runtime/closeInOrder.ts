import type { Logger } from 'pino';

/** One thing a process closes when it stops, named for the log. */
export interface ClosingStep {
  name: string;
  close(): Promise<void>;
}

/**
 * Closes each step in order, each one whatever the steps before it did: a step that fails is logged
 * and the rest still close. What comes last (the embedded PostgreSQL, in a process group of its own)
 * would otherwise outlive the process whenever anything before it failed.
 */
export async function closeInOrder(steps: readonly ClosingStep[], logger: Pick<Logger, 'warn'>): Promise<void> {
  for (const step of steps) {
    try {
      await step.close();
    } catch (error) {
      logger.warn({ err: error, step: step.name }, `could not close ${step.name}; closing the rest`);
    }
  }
}
