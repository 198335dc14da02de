import { randomUUID } from 'node:crypto';
import { type AuthoringScope, requireFlow } from '../authoring/flowAuthoring.ts';
import { type CommandMetadata, type CommandResult, handleCommand } from '../commands/commandHandler.ts';
import { type BacktestState, backtest, summarize } from '../domain/backtests/backtest.ts';
import { type BacktestJudge, type BacktestSelection, type BacktestSummary, backtestStream } from '../domain/backtests/backtestEvents.ts';
import { comparePair } from '../domain/backtests/pairComparison.ts';
import { ApiError } from '../domain/errors/apiError.ts';
import type { FlowState } from '../domain/flows/flow.ts';
import type { RecordedAssertionResult } from '../domain/testing/testRunEvents.ts';
import { commandsOf } from '../execution/engineDependencies.ts';
import type { TestEngine } from '../testing/testRunner.ts';
import { type ResolvedTarget, resolveTarget } from '../testing/testTarget.ts';
import { type BacktestPair, pairReport } from './backtestReport.ts';
import { type RecordedRun, erasedSince, readRecordedRun } from './recordedRun.ts';
import { eraseRunData } from '../execution/eraseRunData.ts';
import { judgePair } from './pairJudge.ts';
import { splitJudge } from '../domain/backtests/judgeWords.ts';
import { replayRun } from './replayRun.ts';
import { loadBacktest } from './backtestStreams.ts';
import { selectRuns } from './runSelection.ts';

/** Replays of one backtest at once, unless asked otherwise (at most MAX_CONCURRENCY). */
export const DEFAULT_CONCURRENCY = 8;
export const MAX_CONCURRENCY = 32;

export interface BacktestRequest {
  flowId: string;
  /** The target: a published version by number, or the draft (default: the draft). */
  version?: number;
  draft?: boolean;
  selection?: BacktestSelection;
  onlyCompleted?: boolean;
  judge?: BacktestJudge | null;
  /** Replays the runs another backtest chose (its selection and judge too, unless given). */
  repeatOf?: string;
  concurrency?: number;
}

export interface StartedBacktest {
  backtestId: string;
  flowId: string;
  flowSlug: string;
  target: { kind: 'version'; number: number } | { kind: 'draft' };
  total: number;
  /** Replays every chosen run and records the comparisons, then the end; `onCompared` hears of each pair. */
  run: (onCompared?: (pair: BacktestPair) => void) => Promise<BacktestReport>;
}

export interface BacktestReport {
  backtestId: string;
  flowId: string;
  target: StartedBacktest['target'];
  status: 'finished';
  summary: BacktestSummary;
  /** The pairs compared, in the order the runs were chosen (the runs skipped as erased are not among them). */
  runs: BacktestPair[];
  /** Chosen runs erased before their comparison was recorded: not compared, nothing of them kept. */
  erased: { executionId: string; backtestExecutionId: string; erasedAt: string }[];
  /** Where its BacktestFinished is in the log: the read models (get_backtest, the promotion gate) show it once they pass it. */
  position: number;
}

/**
 * Starts a backtest: resolves the target once (the version, or a snapshot of the draft, for every
 * replay), chooses the runs (or takes a repeated backtest's), and records BacktestStarted with the
 * principal. Nothing has run yet; `run` does the rest.
 */
export async function startBacktest(engine: TestEngine, scope: AuthoringScope, input: BacktestRequest, metadata: CommandMetadata): Promise<StartedBacktest> {
  const commands = commandsOf(engine);
  const flow = await requireFlow(commands, scope, input.flowId);
  const repeated = input.repeatOf ? await loadBacktest(commands, scope, input.repeatOf) : undefined;
  if (repeated && repeated.started.flowId !== flow.flowId) throw new ApiError('VALIDATION_FAILED', `backtest ${input.repeatOf} is of another flow`);
  if (input.version !== undefined && input.draft) throw new ApiError('VALIDATION_FAILED', 'give a version or the draft, not both');
  const backtestId = randomUUID();
  const wanted = input.version !== undefined ? { version: input.version } : input.draft || !repeated || repeated.started.target.kind === 'draft' ? { draft: true } : { version: repeated.started.target.number };
  const resolved = resolveTarget(flow, wanted, backtestId);
  const selection = input.selection ?? repeated?.started.selection;
  if (!selection) throw new ApiError('VALIDATION_FAILED', 'choose the runs: the last N, a time window, or execution ids');
  const onlyCompleted = input.onlyCompleted ?? repeated?.started.onlyCompleted ?? false;
  const executionIds = repeated ? repeated.started.runs.map((r) => r.executionId) : await runsOnReplicas(engine, (db) => selectRuns(db, flow.flowId, selection, onlyCompleted));
  if (executionIds.length === 0) throw new ApiError('BACKTEST_NO_RUNS', `Flow '${flow.slug}' has no ended production runs in that selection`);
  const concurrency = Math.min(MAX_CONCURRENCY, Math.max(1, input.concurrency ?? DEFAULT_CONCURRENCY));
  const started = await handleCommand(
    commands,
    backtestStream(backtestId),
    backtest,
    {
      type: 'Start',
      data: {
        backtestId,
        flowId: flow.flowId,
        organizationId: flow.organizationId,
        projectId: flow.projectId,
        target: resolved.target,
        selection,
        onlyCompleted,
        judge: input.judge ?? repeated?.started.judge ?? null,
        runs: executionIds.map((executionId) => ({ executionId, backtestExecutionId: randomUUID() })),
        repeatOf: input.repeatOf ?? null,
        runner: engine.runner ?? null,
      },
    },
    { ...metadata, correlationId: backtestId },
  );
  const target: StartedBacktest['target'] = resolved.target.kind === 'version' ? { kind: 'version', number: resolved.target.number } : { kind: 'draft' };
  return {
    backtestId,
    flowId: flow.flowId,
    flowSlug: flow.slug,
    target,
    total: executionIds.length,
    run: (onCompared) => replayAll(engine, { flow, resolved, started, concurrency, target, metadata: { ...metadata, correlationId: backtestId } }, onCompared),
  };
}

type Known = CommandResult<BacktestState, unknown>;

async function replayAll(
  engine: TestEngine,
  run: { flow: Extract<FlowState, { status: 'created' }>; resolved: ResolvedTarget; started: Known; concurrency: number; target: StartedBacktest['target']; metadata: CommandMetadata },
  onCompared?: (pair: BacktestPair) => void,
): Promise<BacktestReport> {
  const state = run.started.state;
  if (state.status === 'none') throw new Error('a backtest that was just started has no state');
  const { backtestId, organizationId, judge: rubric } = state.started;
  const commands = commandsOf(engine);
  const stream = backtestStream(backtestId);
  // One writer per backtest stream: the replays run in parallel, their records go one after another
  // from the state the previous one left (no re-reading a stream that grows with every pair).
  let known: Known = run.started;
  let writes: Promise<unknown> = Promise.resolve();
  const record = (command: Parameters<typeof backtest.decide>[0]) => {
    const next = writes.then(async () => {
      known = await handleCommand(commands, stream, backtest, command, run.metadata, { state: known.state, revision: known.revision, position: known.position });
    });
    writes = next.catch(() => undefined);
    return next;
  };

  const pairs = state.started.runs;
  const reports: (BacktestPair | undefined)[] = new Array(pairs.length);
  const erased: BacktestReport['erased'] = [];
  // A run erased before its comparison is recorded is skipped, never compared (backtest.ts): looked
  // at when it is read and again just before the record. Its replay, if it ran, read the input before
  // the erasure and may have started after the erasure looked for it: it is erased here too. An
  // erasure between the last look and the append leaves a comparison whose sealed changes and judge
  // words read as erased (the key is gone), and a replay the erasure found.
  const skipIfErased = async (pair: (typeof pairs)[number], recorded: RecordedRun, replayed: boolean) => {
    const erasedAt = await erasedSince(engine.eventStore, pair.executionId, recorded);
    if (erasedAt === null) return false;
    if (replayed && engine.runDataKeys) {
      await eraseRunData({ ...commands, runDataKeys: engine.runDataKeys }, { executionId: pair.backtestExecutionId, reason: `its original run ${pair.executionId} was erased` }, run.metadata);
    }
    await record({ type: 'Skip', data: { backtestId, ...pair, reason: 'original_erased', erasedAt } });
    erased.push({ ...pair, erasedAt });
    return true;
  };
  let next = 0;
  const worker = async () => {
    while (next < pairs.length) {
      const index = next++;
      const pair = pairs[index]!;
      const { executionId, backtestExecutionId } = pair;
      const recorded = await readRecordedRun(engine.eventStore, executionId);
      if (!recorded) throw new ApiError('EXECUTION_NOT_FOUND', `run ${executionId} is not in the log`);
      if (await skipIfErased(pair, recorded, false)) continue;
      const candidate = await replayRun(engine, { backtestId, backtestExecutionId, flow: run.flow, resolved: run.resolved, recorded, principal: run.metadata.principal });
      const compared = comparePair(recorded.side, candidate);
      let verdict: RecordedAssertionResult | null = null;
      if (rubric && compared.outcome === 'different') {
        const judged = await judgePair(engine, organizationId, rubric, { original: recorded.side.result, candidate: candidate.result });
        verdict = judged.result;
        if (judged.tokens > 0) await record({ type: 'Charge', event: { type: 'CreditsConsumed', data: { executionId: backtestExecutionId, organizationId, blockName: 'llm_judge', model: judged.model, tokens: judged.tokens } } });
      }
      const { result: _o, ...original } = recorded.side;
      const { result: _c, ...candidateSide } = candidate;
      if (await skipIfErased(pair, recorded, true)) continue;
      await record({ type: 'Compare', data: { backtestId, executionId, backtestExecutionId, ...compared, original, candidate: candidateSide, ...splitJudge(verdict) } });
      reports[index] = pairReport({ executionId, backtestExecutionId, ...compared, judge: verdict }, recorded.side, candidate);
      onCompared?.(reports[index]);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(run.concurrency, pairs.length) }, worker));
  } catch (error) {
    // A replay that could not run (the log went away, say) ends the backtest, never leaves it running:
    // the comparisons recorded so far stay, the rest count as not run.
    engine.logger.error({ err: error, backtestId }, 'backtest stopped');
    await writes;
    await record({ type: 'Finish', status: 'interrupted' }).catch(() => undefined);
    throw error;
  }
  await record({ type: 'Finish', status: 'finished' });
  const compared = reports.filter((r) => r !== undefined);
  const summary = summarize([...compared.map((r) => r.outcome), ...erased.map(() => 'erased' as const)]);
  return { backtestId, flowId: run.flow.flowId, target: run.target, status: 'finished', summary, runs: compared, erased, position: known.position };
}

/**
 * The choice of runs reads where read replicas may serve it: once the runs read model there shows
 * everything this process has appended (the runs its callers just made included), else on the primary.
 */
function runsOnReplicas(engine: TestEngine, select: (db: TestEngine['db']) => Promise<string[]>): Promise<string[]> {
  const replicas = engine.replicaReads;
  if (!replicas) return select(engine.db);
  return replicas.within({ after: replicas.appendedPosition(), projections: ['runs'] }, () => select(replicas.db));
}
