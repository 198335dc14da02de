import type { ExecutionEvent, TokenUsage } from '../../execution/executionEvents.ts';
import { sumUsd } from '../../models/modelCatalog.ts';

/** What a child run spent, as its steps recorded it: its `flow` block's usage and cost in the parent. */
export interface ChildSpending {
  usage: TokenUsage | null;
  costUsd: number | null;
}

/**
 * A child run's tokens and cost, summed over its steps' completions and failures (a grandchild's
 * are in its own `flow` step's, so they roll up level by level). Null usage: no step used tokens;
 * null cost: no step recorded a cost. Its credits were charged in its own stream, never again here.
 */
export function childSpending(events: readonly ExecutionEvent[]): ChildSpending {
  const steps = events.flatMap((event) => (event.type === 'ExecutionStepCompleted' || event.type === 'ExecutionStepFailed' ? [event.data] : []));
  const used = steps.flatMap((step) => (step.usage ? [step.usage] : []));
  const costs = steps.flatMap((step) => (typeof step.costUsd === 'number' ? [step.costUsd] : []));
  const usage: TokenUsage | null =
    used.length === 0 ? null : used.reduce((sum, u) => ({ promptTokens: sum.promptTokens + u.promptTokens, completionTokens: sum.completionTokens + u.completionTokens, totalTokens: sum.totalTokens + u.totalTokens }));
  return { usage, costUsd: costs.length === 0 ? null : sumUsd(costs) };
}
