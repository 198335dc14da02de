import { capFailureMessage } from '../domain/execution/failureMessage.ts';
import type { FallenBack } from '../domain/execution/executionEvents.ts';
import { BlockFailure } from './processors/blockFailure.ts';
import { providerDown } from './processors/providerFailure.ts';
import type { TimedModelCall } from './processors/llmCall.ts';

/**
 * A block's models in turn: its own, then its `fallback_models`. The next is tried only when the
 * one before could not be reached: its provider was down (a 5xx, a 429 its SDK's retries did not
 * outlast, a timeout, no connection) or has no account here. Any other failure (a refused request, a
 * reply that breaks the schema) is the block's own, whichever model it came from. Each model given
 * up on is kept, so the step records which answered and which did not, and the requests made to
 * it (`triedCalls`: the step's waterfall shows them, failed); a model that was not reached used no
 * tokens, so nothing is charged for it.
 */
export async function firstAnswering<T>(models: readonly [string, ...string[]], attempt: (model: string) => Promise<T>): Promise<{ model: string; result: T; fellBack: FallenBack[]; triedCalls: TimedModelCall[] }> {
  const fellBack: FallenBack[] = [];
  const triedCalls: TimedModelCall[] = [];
  for (const [i, model] of models.entries()) {
    try {
      return { model, result: await attempt(model), fellBack, triedCalls };
    } catch (error) {
      const calls = (error as { calls?: TimedModelCall[] }).calls ?? [];
      const reachable = error instanceof BlockFailure && !providerDown(error) && error.code !== 'PROVIDER_NOT_CONFIGURED';
      if (i === models.length - 1 || !(error instanceof BlockFailure) || reachable) throw Object.assign(error as Error, { model, fellBack, calls: [...triedCalls, ...calls] });
      fellBack.push({ model, code: error.code, message: capFailureMessage(error.message) });
      triedCalls.push(...calls);
    }
  }
  throw new Error('a block has at least one model');
}
