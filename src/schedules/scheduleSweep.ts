import { type Kysely, sql } from 'kysely';
import type { Logger } from 'pino';
import { type CommandDependencies, type CommandMetadata, type CommandResult, handleCommand } from '../commands/commandHandler.ts';
import { createDatabaseClock } from '../database/databaseClock.ts';
import { ApiError } from '../domain/errors/apiError.ts';
import { executionStream } from '../domain/execution/executionEvents.ts';
import { type FiringRules, firingPlan } from '../domain/schedules/firingPlan.ts';
import { type ScheduleCommand, type ScheduleState, schedule } from '../domain/schedules/schedule.ts';
import { type ScheduleEvent, firingExecutionId, scheduleStream } from '../domain/schedules/scheduleEvents.ts';
import { loadStream } from '../eventstore/streams.ts';
import type { ReadModels } from '../projections/readModelSchema.ts';
import { type FlowSlugs, flowSlugsOf } from '../queries/flowQueries.ts';
import type { RunService } from '../runs/runService.ts';
import { periodicTask } from '../supervision/periodicTask.ts';

const PAGE = 100;
const metadata: CommandMetadata = { principal: { kind: 'system', id: 'schedule' } };

type Active = Exclude<ScheduleState, { status: 'none' }>;

/**
 * Fires the schedules that are due, in every worker process. The read model says which schedules
 * to look at (next firing at or before now, on the database's clock); each schedule's stream
 * decides what fires (firingPlan) and records each firing once (the decider). A firing's job is
 * started before its firing is recorded, under an id the firing names: a worker that dies between
 * leaves a firing that the next sweep (any worker's) finds still due, starts again (finding the
 * job there) and records. So nothing fires twice, and nothing is lost while a worker lives.
 */
export function createScheduleSweep(deps: {
  db: Kysely<ReadModels>;
  commands: CommandDependencies;
  runs: Pick<RunService, 'startScheduledJob'>;
  logger: Pick<Logger, 'info' | 'warn'>;
  intervalMs: number;
  rules: FiringRules;
}) {
  const clock = createDatabaseClock(deps.db);
  const { eventStore } = deps.commands;

  /** The schedules due at `at`, or at the database's `now()` (an idle sweep is this one statement). */
  const due = (at: Date | undefined) =>
    deps.db
      .selectFrom('schedules')
      .select('id')
      .where('status', '=', 'active')
      .where('next_firing_at', '<=', at ?? sql<Date>`now()`)
      .orderBy('next_firing_at')
      .limit(PAGE)
      .execute();

  /** What firing `scheduledFor` gave: its job, or why no job could start. */
  async function fire(state: Active, slugs: FlowSlugs | undefined, scheduledFor: string): Promise<{ executionId: string | null; error: { code: string; message: string } | null }> {
    try {
      if (!slugs) throw new ApiError('FLOW_NOT_FOUND', `the schedule's flow ${state.flowId} no longer exists`);
      return { executionId: await deps.runs.startScheduledJob({ ...state, scheduledFor }, slugs), error: null };
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      // Another worker may have started it before what failed here changed (a version unset since).
      const executionId = firingExecutionId(state.scheduleId, scheduledFor);
      if (await eventStore.streamExists(executionStream(executionId))) return { executionId, error: null };
      deps.logger.warn({ scheduleId: state.scheduleId, scheduledFor, code: error.code }, 'schedule: a firing could not start its job');
      return { executionId: null, error: { code: error.code, message: error.message } };
    }
  }

  /** Everything one schedule owes at `now`; answers how many firings it recorded. */
  async function settle(scheduleId: string, now: Date): Promise<number> {
    const stream = scheduleStream(scheduleId);
    let known: Pick<CommandResult<ScheduleState, ScheduleEvent>, 'state' | 'revision' | 'position'> = await loadStream(eventStore, stream, schedule);
    const { state } = known;
    if (state.status !== 'active') return 0;
    const record = async (command: ScheduleCommand) => (known = await handleCommand(deps.commands, stream, schedule, command, metadata, known));
    const plan = firingPlan(state, now, deps.rules);
    if (plan.skip) await record({ type: 'SkipFirings', data: plan.skip });
    const slugs = plan.fire.length > 0 ? await flowSlugsOf(deps.db, state.flowId) : undefined;
    let recorded = 0;
    for (const { scheduledFor, late } of plan.fire) {
      const outcome = await fire(state, slugs, scheduledFor);
      if ((await record({ type: 'RecordFiring', data: { scheduledFor, late, ...outcome } })).events.length > 0) recorded++;
    }
    return recorded;
  }

  /** Fires every schedule due now (the database's clock, unless given); answers how many firings it recorded. */
  async function sweepOnce(at?: Date): Promise<number> {
    const rows = await due(at);
    if (rows.length === 0) return 0;
    if (!at) await clock.refresh();
    const now = at ?? clock.now();
    let recorded = 0;
    for (const row of rows) recorded += await settle(row.id, now);
    if (recorded > 0) deps.logger.info({ recorded }, 'schedule: fired');
    return recorded;
  }

  return {
    sweepOnce,
    /** Sweeps every `intervalMs`, under the supervisor. */
    start: () => periodicTask(deps.intervalMs, async () => void (await sweepOnce())),
  };
}
