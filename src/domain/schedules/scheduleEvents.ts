import { z } from 'zod';
import { operational } from '../privacy/dataClass.ts';
import { aCode, aTime, anId, callbackUrl } from '../privacy/operationalText.ts';
import { defineEvent, type EventOf } from '../events/eventDefinition.ts';
import { nameBasedId } from '../nameBasedId.ts';
import { attachmentSchema } from '../execution/attachment.ts';
import { webhookEvents } from '../execution/executionEvents.ts';

/** What a schedule does with the firings it missed while no worker ran: run them (oldest first), or record them skipped. */
export const missedFiringPolicies = ['run', 'skip'] as const;
export type MissedFiringPolicy = (typeof missedFiringPolicies)[number];

/** The input each firing's job runs with: a /jobs request's message, parameters and attachments. */
export const scheduleInputSchema = z.object({
  message: z.string(),
  parameters: z.record(z.string(), z.unknown()),
  attachments: z.array(attachmentSchema),
});
export type ScheduleInput = z.infer<typeof scheduleInputSchema>;

/**
 * A flow's schedule: a job of the flow's production version (at the time of each firing) with
 * `input`, at every time `cron` names in `timezone`, firings counted from `firstAfter` (the moment it
 * was added, on the database's clock). `callbackUrl` receives the jobs' webhooks, as a /jobs call's.
 */
export const ScheduleAdded = defineEvent(
  'ScheduleAdded',
  1,
  z.object({
    scheduleId: anId(),
    organizationId: anId(),
    projectId: anId(),
    flowId: anId(),
    cron: operational(z.string(), "the schedule's cron expression: configuration"),
    timezone: operational(z.string(), "the schedule's time zone: configuration"),
    input: operational(scheduleInputSchema, "the input the schedule's owner configured for its jobs: configuration, removed with the schedule; each job seals its own copy under its own key"),
    callbackUrl: callbackUrl().nullable(),
    callbackEvents: z.array(z.enum(webhookEvents)),
    missed: z.enum(missedFiringPolicies),
    firstAfter: aTime(),
  }),
);

/** Firings stop until a resume; none of those in between is due, missed or recorded. */
export const SchedulePaused = defineEvent('SchedulePaused', 1, z.object({ scheduleId: anId() }));

/** Firings start again strictly after `resumedAt` (the database's clock at the resume). */
export const ScheduleResumed = defineEvent('ScheduleResumed', 1, z.object({ scheduleId: anId(), resumedAt: aTime() }));

/** The schedule fires no more; its firings and their runs stay in the log. */
export const ScheduleRemoved = defineEvent('ScheduleRemoved', 1, z.object({ scheduleId: anId() }));

/**
 * One firing, identified by its scheduled time: recorded once, whatever the number of worker
 * processes. `executionId` is the job it started (its id derived from the schedule and the time),
 * or null with `error` when no job could start (no production version, a callback the guard now
 * refuses...). `late`: it ran after its time, as a missed firing under the `run` policy.
 */
export const ScheduleFired = defineEvent(
  'ScheduleFired',
  1,
  z.object({
    scheduleId: anId(),
    scheduledFor: aTime(),
    executionId: anId().nullable(),
    error: z.object({ code: aCode(), message: operational(z.string(), "the service's words for why a firing started no job (a refusal of the schedule's own configuration)") }).nullable(),
    late: z.boolean(),
  }),
);

/**
 * Firings that were not run: missed under the `skip` policy (`missed`), or past the cap of missed
 * firings a catch-up runs (`too_many`). `first` and `last` are the first and last of them; `count`
 * is how many, or null when there were too many to count.
 */
export const ScheduleFiringsSkipped = defineEvent(
  'ScheduleFiringsSkipped',
  1,
  z.object({ scheduleId: anId(), first: aTime(), last: aTime(), count: z.number().int().min(1).nullable(), reason: z.enum(['missed', 'too_many']) }),
);

export type ScheduleEvent =
  | EventOf<typeof ScheduleAdded>
  | EventOf<typeof SchedulePaused>
  | EventOf<typeof ScheduleResumed>
  | EventOf<typeof ScheduleRemoved>
  | EventOf<typeof ScheduleFired>
  | EventOf<typeof ScheduleFiringsSkipped>;

export const scheduleStream = (scheduleId: string) => `schedule-${scheduleId}`;

/** The job a firing starts: its id named by the schedule and the firing's time, so a second start of it finds the first. */
export const firingExecutionId = (scheduleId: string, scheduledFor: string) => nameBasedId('schedule firing', scheduleId, scheduledFor);
