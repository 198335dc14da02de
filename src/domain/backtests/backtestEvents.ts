import { z } from 'zod';
import { operational, personal } from '../privacy/dataClass.ts';
import { aCode, aTime, anId, workerName } from '../privacy/operationalText.ts';
import { defineEvent, type EventOf } from '../events/eventDefinition.ts';
import { testTargetSchema } from '../testing/testRunEvents.ts';
import { judgeVerdictSchema, judgeWordsSchema, splitJudge } from './judgeWords.ts';
import type { RecordedAssertionResult } from '../testing/testRunEvents.ts';

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
  z.object({ kind: z.literal('executions'), executionIds: z.array(operational(z.string().min(1), 'ids of runs, made by the service')).min(1).max(MAX_BACKTEST_RUNS) }),
]);
export type BacktestSelection = z.infer<typeof backtestSelectionSchema>;

/** An optional llm_judge: does a pair's difference matter? Recorded like a test assertion's result. */
export const backtestJudgeSchema = z.strictObject({
  rubric: operational(z.string().min(1).max(10_000), "the judge's rubric, written by the flow's team: configuration"),
  model: operational(z.string().min(1), "the judging model's name: configuration").optional(),
  threshold: z.number().min(0).max(1).optional(),
});
export type BacktestJudge = z.infer<typeof backtestJudgeSchema>;

/** One side of a pair: how the recorded run (or its replay) ended. Results themselves stay in the runs' own streams. */
export const pairSideSchema = z.object({
  status: z.enum(['completed', 'failed', 'paused']),
  durationMs: z.number().int().min(0),
  tokens: z.number().int().min(0),
  error: z.object({ code: aCode(), message: operational(z.string(), "the service's words for how the run failed (a failure's message, never its detail)") }).nullable(),
});
export type PairSide = z.infer<typeof pairSideSchema>;

/** A path of the result that changed: added or removed by the candidate, or changed (short excerpts of both values). */
export const resultChangeSchema = z.object({ path: z.string(), kind: z.enum(['added', 'removed', 'changed']), before: z.string().optional(), after: z.string().optional() });
export type ResultChange = z.infer<typeof resultChangeSchema>;

export const pairOutcomes = ['same', 'different', 'failed'] as const;
export type PairOutcome = (typeof pairOutcomes)[number];

/**
 * `erased`: chosen runs whose data was erased before their comparison was recorded (BacktestRunSkipped):
 * neither compared nor counted as not run. Summaries recorded before it read 0.
 */
export const backtestSummarySchema = z.object({ total: z.number().int(), same: z.number().int(), different: z.number().int(), failed: z.number().int(), notRun: z.number().int(), erased: z.number().int().default(0) });
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
    backtestId: anId(),
    flowId: anId(),
    organizationId: anId(),
    projectId: anId(),
    target: testTargetSchema,
    selection: backtestSelectionSchema,
    onlyCompleted: z.boolean(),
    judge: backtestJudgeSchema.nullable(),
    runs: z.array(z.object({ executionId: anId(), backtestExecutionId: anId() })).max(MAX_BACKTEST_RUNS),
    /** The backtest this one repeats (same runs), or null. */
    repeatOf: anId().nullable(),
    runner: workerName().nullable(),
  }),
);

/**
 * A pair compared. Version 2 keeps the judge's verdict (`judge`) apart from its words (`judgeWords`,
 * sealed under the original run's key): judgeWords.ts. Version 1 events kept both in `judge`, unsealed.
 */
export const BacktestRunCompared = defineEvent(
  'BacktestRunCompared',
  2,
  z.object({
    backtestId: anId(),
    executionId: anId(),
    backtestExecutionId: anId(),
    outcome: z.enum(pairOutcomes),
    /** The result's changed paths (at most MAX_CHANGES of them; `more` counts the rest): excerpts of the original run's result. */
    changes: personal(z.array(resultChangeSchema), []),
    more: z.number().int().min(0),
    original: pairSideSchema,
    candidate: pairSideSchema,
    judge: judgeVerdictSchema.nullable(),
    /** The judge's reason and rationale are about the original run's result: sealed under its key. */
    judgeWords: personal(judgeWordsSchema.nullable(), null),
  }),
);

/**
 * A chosen run not compared, and why: its data was erased before its comparison was recorded, so a
 * comparison would quote a run that no longer has its input or result (issue 60: refused, not made).
 * Only ids and the erasure's time: nothing of the run.
 */
export const BacktestRunSkipped = defineEvent(
  'BacktestRunSkipped',
  1,
  z.object({
    backtestId: anId(),
    executionId: anId(),
    backtestExecutionId: anId(),
    reason: z.enum(['original_erased']),
    erasedAt: aTime(),
  }),
);

export const BacktestFinished = defineEvent(
  'BacktestFinished',
  1,
  z.object({
    backtestId: anId(),
    /** `interrupted`: its process stopped first; the runs not compared count as notRun. */
    status: z.enum(['finished', 'interrupted']),
    summary: backtestSummarySchema,
    /** `erased`: skipped (BacktestRunSkipped); recorded since that event exists, an addition to version 1's values. */
    runs: z.array(z.object({ executionId: anId(), backtestExecutionId: anId(), outcome: z.enum([...pairOutcomes, 'not_run', 'erased']) })),
  }),
);

export type BacktestEvent = EventOf<typeof BacktestStarted> | EventOf<typeof BacktestRunCompared> | EventOf<typeof BacktestRunSkipped> | EventOf<typeof BacktestFinished>;

export const backtestStream = (backtestId: string) => `backtest-${backtestId}`;

/** A version 1 comparison's judge, split as version 2 keeps it (its words were stored unsealed then). */
export const upcastComparedJudge = (data: { judge?: RecordedAssertionResult | null }) => splitJudge(data.judge ?? null);
