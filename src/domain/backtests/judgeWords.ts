import { z } from 'zod';
import type { RecordedAssertionResult } from '../testing/testRunEvents.ts';
import { operational } from '../privacy/dataClass.ts';
import { aHash, aModel, aName } from '../privacy/operationalText.ts';

/**
 * A backtest judge's verdict on a pair, apart from its words. The verdict (passed, score, which
 * model judged) is what the backtest counts and the promotion gate reads: operational, kept. The
 * reason and rationale are about the original run's result: sealed under its key, gone with it
 * (BacktestRunCompared version 2), so a count never depends on words an erasure removes.
 */
export const judgeVerdictSchema = z.object({
  type: operational(z.string(), "the assertion's type, from the service's vocabulary"),
  step: aName().optional(),
  passed: z.boolean(),
  score: z.number().min(0).max(1),
  judge: z.object({ model: aModel(), promptHash: aHash() }).optional(),
});
export type JudgeVerdict = z.infer<typeof judgeVerdictSchema>;

export const judgeWordsSchema = z.object({ reason: z.string(), rationale: z.string().nullable() });
export type JudgeWords = z.infer<typeof judgeWordsSchema>;

/** A recorded judge's result as the event keeps it: the verdict, and its words apart. */
export function splitJudge(result: RecordedAssertionResult | null): { judge: JudgeVerdict | null; judgeWords: JudgeWords | null } {
  if (result === null) return { judge: null, judgeWords: null };
  const { reason, judge, ...verdict } = result;
  return {
    judge: { ...verdict, ...(judge ? { judge: { model: judge.model, promptHash: judge.promptHash } } : {}) },
    judgeWords: { reason, rationale: judge?.rationale ?? null },
  };
}

/** The judge's result as readers show it: its words, or empty ones once the original run is erased. */
export function joinJudge(judge: JudgeVerdict | null, words: JudgeWords | null): RecordedAssertionResult | null {
  if (judge === null) return null;
  const { judge: by, ...verdict } = judge;
  return { ...verdict, reason: words?.reason ?? '', ...(by ? { judge: { ...by, rationale: words?.rationale ?? '' } } : {}) };
}
