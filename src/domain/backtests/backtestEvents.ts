import { z } from 'zod';
import { defineEvent, type EventOf } from '../events/eventDefinition.ts';
import { assertionResultSchema, testTargetSchema } from '../testing/testRunEvents.ts';

/** A backtest replays at most this many recorded runs. */
export const MAX_BACKTEST_RUNS = 1000;

/**
 * Which recorded runs a backtest replays: the flow's last `count` production runs, those of a time
 * window, or runs named by id. Only ended runs (completed, or failed too unless `onlyCompleted`) of
 * the flow's production traffic are ever chosen: never test or backtest runs.
 */
export const backtestSelectionSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('last'), count: z.number().int().min(1).max(MAX_BACKTEST_RUNS) }),
  z.object({ kind: z.literal('window'), since: z.iso.datetime({ offset: true }), until: z.iso.datetime({ offset: true }) }),
  z.object({ kind: z.literal('executions'), executionIds: z.array(z.string().min(1)).min(1).max(MAX_BACKTEST_RUNS) }),
]);
export type BacktestSelection = z.infer<typeof backtestSelectionSchema>;

/** An optional llm_judge: does a pair's difference matter? Recorded like a test assertion's result. */
export const backtestJudgeSchema = z.strictObject({
  rubric: z.string().min(1).max(10_000),
  model: z.string().min(1).optional(),
  threshold: z.number().min(0).max(1).optional(),
});
export type BacktestJudge = z.infer<typeof backtestJudgeSchema>;

/** One side of a pair: how the recorded run (or its replay) ended. Results themselves stay in the runs' own streams. */
export const pairSideSchema = z.object({
  status: z.enum(['completed', 'failed', 'paused']),
  durationMs: z.number().int().min(0),
  tokens: z.number().int().min(0),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
});
export type PairSide = z.infer<typeof pairSideSchema>;

/** A path of the result that changed: added or removed by the candidate, or changed (short excerpts of both values). */
export const resultChangeSchema = z.object({ path: z.string(), kind: z.enum(['added', 'removed', 'changed']), before: z.string().optional(), after: z.string().optional() });
export type ResultChange = z.infer<typeof resultChangeSchema>;

export const pairOutcomes = ['same', 'different', 'failed'] as const;
export type PairOutcome = (typeof pairOutcomes)[number];

export const backtestSummarySchema = z.object({ total: z.number().int(), same: z.number().int(), different: z.number().int(), failed: z.number().int(), notRun: z.number().int() });
export type BacktestSummary = z.infer<typeof backtestSummarySchema>;

/**
 * A backtest's stream `backtest-<id>`: started with what it replays on what (the runs chosen, each
 * with the id its replay runs under, so a repeat replays the same runs), one comparison per run,
 * then finished with the summary. `runner`: the process that runs it (its runner lease): a sweep
 * finishes it `interrupted` when that process dies.
 */
export const BacktestStarted = defineEvent(
  'BacktestStarted',
  1,
  z.object({
    backtestId: z.string(),
    flowId: z.string(),
    organizationId: z.string(),
    projectId: z.string(),
    target: testTargetSchema,
    selection: backtestSelectionSchema,
    onlyCompleted: z.boolean(),
    judge: backtestJudgeSchema.nullable(),
    runs: z.array(z.object({ executionId: z.string(), backtestExecutionId: z.string() })).max(MAX_BACKTEST_RUNS),
    /** The backtest this one repeats (same runs), or null. */
    repeatOf: z.string().nullable(),
    runner: z.string().nullable(),
  }),
);

export const BacktestRunCompared = defineEvent(
  'BacktestRunCompared',
  1,
  z.object({
    backtestId: z.string(),
    executionId: z.string(),
    backtestExecutionId: z.string(),
    outcome: z.enum(pairOutcomes),
    /** The result's changed paths (at most MAX_CHANGES of them; `more` counts the rest). */
    changes: z.array(resultChangeSchema),
    more: z.number().int().min(0),
    original: pairSideSchema,
    candidate: pairSideSchema,
    judge: assertionResultSchema.nullable(),
  }),
);

export const BacktestFinished = defineEvent(
  'BacktestFinished',
  1,
  z.object({
    backtestId: z.string(),
    /** `interrupted`: its process stopped first; the runs not compared count as notRun. */
    status: z.enum(['finished', 'interrupted']),
    summary: backtestSummarySchema,
    runs: z.array(z.object({ executionId: z.string(), backtestExecutionId: z.string(), outcome: z.enum([...pairOutcomes, 'not_run']) })),
  }),
);

export type BacktestEvent = EventOf<typeof BacktestStarted> | EventOf<typeof BacktestRunCompared> | EventOf<typeof BacktestFinished>;

export const backtestStream = (backtestId: string) => `backtest-${backtestId}`;
