import { LRUCache } from 'lru-cache';
import { type CompiledCondition, type ConditionContext, type ConditionOutcome, compileRunCondition } from '../domain/flows/runCondition.ts';

/** Decides `run_if` conditions, each compiled once (JSONata parses it) and kept in a bounded cache by its text. */
export interface RunConditions {
  decide(condition: string, context: ConditionContext): Promise<ConditionOutcome>;
}

export function createRunConditions(max = 1000): RunConditions {
  const compiled = new LRUCache<string, CompiledCondition>({ max });
  return {
    decide(condition, context) {
      let decide = compiled.get(condition);
      if (!decide) compiled.set(condition, (decide = compileRunCondition(condition)));
      return decide(context);
    },
  };
}
