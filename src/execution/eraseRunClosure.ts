import type { Kysely } from 'kysely';
import type { CommandDependencies, CommandMetadata } from '../commands/commandHandler.ts';
import { ApiError } from '../domain/errors/apiError.ts';
import { type ErasureMatch, executionStream } from '../domain/execution/executionEvents.ts';
import { decodeRecorded } from '../eventstore/decodeRecorded.ts';
import type { EventStore } from '../eventstore/eventStore.ts';
import type { ReadModelsCurrent } from '../projections/readModelsCurrent.ts';
import type { ReadModels } from '../projections/readModelSchema.ts';
import type { RunDataKeys } from '../security/runDataKeys.ts';
import { type Derivation, MAX_DERIVED_RUNS, derivedRunsOf } from './derivedRuns.ts';
import { type RunErasure, eraseRunData } from './eraseRunData.ts';

export interface ClosureErasure extends RunErasure {
  /** The runs derived from it (reruns, backtest replays, test runs of cases made from it, and theirs), each erased with it. */
  derived: { executionId: string; derivation: Derivation; from: string; erasedAt: string | null; erasedNow: boolean; error: { code: string; message: string } | null }[];
  /** Test cases made from it or from a derived run: they keep their own copy of its input (docs/operations.md); delete them too if they hold the person's data. */
  testCasesKept: { testCaseId: string; name: string; from: string }[];
}

const ENDED = new Set(['completed', 'failed']);

export type ErasureDependencies = CommandDependencies & {
  runDataKeys: RunDataKeys;
  db: Kysely<ReadModels>;
  /** The read models caught up with the log first: a test run or replay started a moment ago is in the log before it is in them. */
  readModelsCurrent: ReadModelsCurrent;
};

/**
 * The closure is read from the read models once they show what the log held when the erasure began;
 * a rerun started after that is linked in its original's stream (ExecutionRerunStarted, written
 * before the rerun) but may not be in the runs read model yet. Such a rerun would be left out, so
 * the erasure is refused until it shows. (A test run started after it copies its test case, the
 * documented exception; a backtest replay started after it skips an erased run.)
 */
async function refuseUnseenReruns(eventStore: EventStore, closure: readonly string[]) {
  const known = new Set(closure);
  for (const executionId of closure) {
    const events = (await eventStore.readStream(executionStream(executionId), { unreadable: 'mark' })).map(decodeRecorded);
    const unseen = events.flatMap((e) => (e.type === 'ExecutionRerunStarted' && !known.has(e.data.rerunExecutionId) ? [e.data.rerunExecutionId] : []));
    if (unseen.length > 0) throw new ApiError('CONFLICT', `run ${executionId} was rerun as ${unseen.join(', ')} a moment ago and the read models do not show it yet: erase again in a moment`);
  }
}

/**
 * Erases a run and everything derived from it, in one command: the run first (its caller's scope is
 * checked on it), then each derived run, with the same reason. Refused, erasing nothing, when a
 * derived run has not ended (it would go on writing): the answer lists them. A process that dies
 * part way leaves the run erased and some derived runs not: the same erasure again finds them
 * (derivedRuns.ts reads what is not erased yet) and finishes it.
 */
export async function eraseRunClosure(
  deps: ErasureDependencies,
  input: { executionId: string; reason: string; trigger?: 'request' | 'retention'; match?: ErasureMatch; projectOf?: string; flowOf?: string },
  metadata: CommandMetadata,
): Promise<ClosureErasure> {
  await deps.readModelsCurrent();
  const closure = await derivedRunsOf(deps.db, input.executionId);
  if (closure === null) throw new ApiError('CONFLICT', `run ${input.executionId} has more than ${MAX_DERIVED_RUNS} runs derived from it: erase them in parts (seqflow runs erase --execution) first`);
  await refuseUnseenReruns(deps.eventStore, [input.executionId, ...closure.derived.map((d) => d.executionId)]);
  const open = closure.derived.filter((d) => d.dataErasedAt === null && !ENDED.has(d.status));
  if (open.length > 0) {
    const named = open.slice(0, 20).map((d) => `${d.executionId} (${d.derivation}, ${d.status})`);
    throw new ApiError('CONFLICT', `run ${input.executionId} cannot be erased with what was derived from it: ${open.length} derived run(s) have not ended (${named.join(', ')}): cancel them or let them end, then erase again`, { notEnded: open.map((d) => ({ executionId: d.executionId, derivation: d.derivation, status: d.status })) });
  }
  const own = await eraseRunData(deps, input, metadata);
  const derived: ClosureErasure['derived'] = [];
  for (const run of closure.derived) {
    const of = { executionId: run.executionId, derivation: run.derivation, from: run.from };
    try {
      const erased = await eraseRunData(deps, { executionId: run.executionId, reason: input.reason, ...(input.trigger ? { trigger: input.trigger } : {}), ...(input.match ? { match: input.match } : {}) }, metadata);
      derived.push({ ...of, erasedAt: erased.erasedAt, erasedNow: erased.erasedNow, error: null });
    } catch (error) {
      // A derived run recorded before sealing has no key to remove: said, not hidden.
      if (!(error instanceof ApiError)) throw error;
      derived.push({ ...of, erasedAt: null, erasedNow: false, error: { code: error.code, message: error.message } });
    }
  }
  return { ...own, derived, testCasesKept: closure.testCases };
}
