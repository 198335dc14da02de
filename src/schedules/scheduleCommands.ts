import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { type CommandDependencies, type CommandMetadata, handleCommand } from '../commands/commandHandler.ts';
import { createDatabaseClock } from '../database/databaseClock.ts';
import { ApiError } from '../domain/errors/apiError.ts';
import { checkCronSchedule } from '../domain/schedules/cronTimes.ts';
import { type ScheduleCommand, schedule } from '../domain/schedules/schedule.ts';
import { type MissedFiringPolicy, missedFiringPolicies, scheduleStream } from '../domain/schedules/scheduleEvents.ts';
import { parseScheduleInput } from '../domain/schedules/scheduleInput.ts';
import type { AddressGuard } from '../outbound/addressGuard.ts';
import type { ReadModels } from '../projections/readModelSchema.ts';
import { type CallbackPolicy, checkCallback } from '../runs/callbackCheck.ts';

export interface ScheduleManaging {
  db: Kysely<ReadModels>;
  commands: CommandDependencies;
  guard: Pick<AddressGuard, 'check' | 'inAllowedRanges'>;
  callbacks: CallbackPolicy;
}

export interface NewSchedule {
  flowId: string;
  cron: string;
  /** IANA time zone; UTC unless given. */
  timezone?: string | undefined;
  /** What each firing's job gets, as a /jobs body (message, parameters, attachments). */
  input: unknown;
  callbackUrl?: string | undefined;
  callbackEvents?: unknown;
  /** Missed firings: `run` (the default) or `skip`. */
  missed?: string | undefined;
}

/**
 * Adds a schedule to a flow, every part checked first: the cron expression and the time zone, the
 * input (as a /jobs body), the callback (as a /jobs call's, through the address guard). Firings
 * count from now on the database's clock. The flow needs no production version yet: a firing
 * without one is recorded with NO_PRODUCTION_VERSION.
 */
export async function addSchedule(deps: ScheduleManaging, request: NewSchedule, metadata: CommandMetadata) {
  const scheduleId = randomUUID();
  const timezone = request.timezone ?? 'UTC';
  checkCronSchedule({ cron: request.cron, timezone, seed: scheduleId });
  const missed = missedPolicyOf(request.missed);
  const input = parseScheduleInput(request.input);
  const callback = await checkCallback(deps.guard, deps.callbacks, { callbackUrl: request.callbackUrl, callbackEvents: request.callbackEvents });
  const flow = await flowById(deps.db, request.flowId);
  const data = {
    scheduleId,
    ...flow,
    cron: request.cron,
    timezone,
    input,
    callbackUrl: callback?.url ?? null,
    callbackEvents: callback?.events ?? [],
    missed,
    firstAfter: (await databaseNow(deps.db)).toISOString(),
  };
  const result = await handleCommand(deps.commands, scheduleStream(scheduleId), schedule, { type: 'AddSchedule', data }, metadata);
  return { scheduleId, position: result.position };
}

/** Pauses, resumes or removes a schedule (a resume counts firings from now, on the database's clock). */
export async function changeSchedule(deps: Pick<ScheduleManaging, 'db' | 'commands'>, scheduleId: string, change: 'pause' | 'resume' | 'remove', metadata: CommandMetadata) {
  const command: ScheduleCommand =
    change === 'resume' ? { type: 'ResumeSchedule', data: { now: (await databaseNow(deps.db)).toISOString() } } : { type: change === 'pause' ? 'PauseSchedule' : 'RemoveSchedule' };
  const result = await handleCommand(deps.commands, scheduleStream(scheduleId), schedule, command, metadata);
  return { scheduleId, status: result.state.status, changed: result.events.length > 0, position: result.position };
}

/** The database's clock now: firings count from it, whatever this process's clock says. */
async function databaseNow(db: Kysely<ReadModels>): Promise<Date> {
  const clock = createDatabaseClock(db);
  await clock.refresh();
  return clock.now();
}

function missedPolicyOf(value: string | undefined): MissedFiringPolicy {
  if (value === undefined) return 'run';
  if ((missedFiringPolicies as readonly string[]).includes(value)) return value as MissedFiringPolicy;
  throw new ApiError('VALIDATION_FAILED', `missed: one of ${missedFiringPolicies.join(', ')} (got '${value}')`);
}

async function flowById(db: Kysely<ReadModels>, flowId: string) {
  const row = await db.selectFrom('flows').select(['id as flowId', 'project_id as projectId', 'organization_id as organizationId']).where('id', '=', flowId).executeTakeFirst();
  if (!row) throw new ApiError('FLOW_NOT_FOUND', `No flow ${flowId}`);
  return row;
}
