import { setTimeout as sleepFor } from 'node:timers/promises';
import { type ModelRetryLimits, decideModelRetry } from '../../domain/models/modelCallRetry.ts';
import { BlockFailure } from './blockFailure.ts';
import { providerDown, retryAfterOf } from './providerFailure.ts';

/**
 * Makes a model call until it answers or the model-call retry decision (modelCallRetry.ts) says to
 * stop; each call is its own attempt (its own span, metric and waterfall entry). The providers' SDKs
 * do not retry themselves, so one policy decides for every provider and a `Retry-After` past the
 * bound is not waited for by any of them. The wait holds nothing: no database connection and no
 * sandbox slot is taken during a model call.
 */
export async function withModelRetries<T>(call: () => Promise<T>, limits: ModelRetryLimits, sleep: (ms: number) => Promise<unknown> = sleepFor, random: () => number = Math.random): Promise<T> {
  for (let failures = 1; ; failures++) {
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof BlockFailure)) throw error;
      const decision = decideModelRetry({ providerDown: providerDown(error), retryAfterMs: retryAfterOf(error) }, failures, limits, random());
      if (!decision.retry) {
        if (decision.reason === 'wait_too_long') error.message += ` (it asked to be called again in ${retryAfterOf(error)} ms, longer than SEQFLOW_LLM_MAX_RETRY_WAIT_MS, ${limits.maxWaitMs} ms)`;
        throw error;
      }
      await sleep(decision.delayMs);
    }
  }
}
