import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fold } from '../../src/domain/decider.ts';
import { checkCronSchedule, firingsBetween, nextFiring } from '../../src/domain/schedules/cronTimes.ts';
import { firingPlan } from '../../src/domain/schedules/firingPlan.ts';
import { schedule } from '../../src/domain/schedules/schedule.ts';
import { type ScheduleEvent, firingExecutionId } from '../../src/domain/schedules/scheduleEvents.ts';
import { parseScheduleInput } from '../../src/domain/schedules/scheduleInput.ts';
import { deciderSpec } from '../support/deciderSpec.ts';

const spec = deciderSpec(schedule);
const added = (over: Partial<Extract<ScheduleEvent, { type: 'ScheduleAdded' }>['data']> = {}): ScheduleEvent => ({
  type: 'ScheduleAdded',
  data: {
    scheduleId: 's1', organizationId: 'o', projectId: 'p', flowId: 'f', cron: '0 * * * *', timezone: 'UTC',
    input: { message: 'digest', parameters: {}, attachments: [] }, callbackUrl: null, callbackEvents: [], missed: 'run', firstAfter: '2026-01-01T00:00:00.000Z', ...over,
  },
});
const fired = (scheduledFor: string, executionId: string | null = firingExecutionId('s1', scheduledFor)): ScheduleEvent => ({ type: 'ScheduleFired', data: { scheduleId: 's1', scheduledFor, executionId, error: null, late: false } });
const record = (scheduledFor: string, executionId: string | null = 'job') => ({ type: 'RecordFiring' as const, data: { scheduledFor, executionId, error: executionId ? null : { code: 'NO_PRODUCTION_VERSION', message: 'none' }, late: false } });
const stateOf = (events: ScheduleEvent[]) => {
  const state = fold(schedule, events);
  if (state.status === 'none') throw new Error('no schedule');
  return state;
};
const rules = { missedAfterMs: 60_000, maxCatchUp: 3 };

describe('a schedule fires each of its times once', () => {
  it('records a firing after every one accounted for', () => {
    spec.given([added()]).when(record('2026-01-01T01:00:00.000Z')).then([{ type: 'ScheduleFired', data: { scheduleId: 's1', scheduledFor: '2026-01-01T01:00:00.000Z', executionId: 'job', error: null, late: false } }]);
  });

  it('records nothing for a time already fired: the second worker to fire it decides again on the first one\'s event', () => {
    spec.given([added(), fired('2026-01-01T01:00:00.000Z')]).when(record('2026-01-01T01:00:00.000Z')).then([]);
    spec.given([added(), fired('2026-01-01T02:00:00.000Z')]).when(record('2026-01-01T01:00:00.000Z')).then([]);
  });

  it('records nothing at or before the time it was added or resumed', () => {
    spec.given([added()]).when(record('2026-01-01T00:00:00.000Z')).then([]);
    spec
      .given([added(), { type: 'SchedulePaused', data: { scheduleId: 's1' } }, { type: 'ScheduleResumed', data: { scheduleId: 's1', resumedAt: '2026-01-01T05:30:00.000Z' } }])
      .when(record('2026-01-01T05:00:00.000Z'))
      .then([]);
  });

  it('records a firing whose job started even when a pause came in between, but no jobless one once paused', () => {
    const paused: ScheduleEvent[] = [added(), { type: 'SchedulePaused', data: { scheduleId: 's1' } }];
    spec.given(paused).when(record('2026-01-01T01:00:00.000Z', 'job')).then((events) => expect(events).toHaveLength(1));
    spec.given(paused).when(record('2026-01-01T01:00:00.000Z', null)).then([]);
  });

  it('pauses, resumes and removes once each; a removed or unknown schedule is not found', () => {
    spec.given([added()]).when({ type: 'PauseSchedule' }).then([{ type: 'SchedulePaused', data: { scheduleId: 's1' } }]);
    spec.given([added(), { type: 'SchedulePaused', data: { scheduleId: 's1' } }]).when({ type: 'PauseSchedule' }).then([]);
    spec.given([added()]).when({ type: 'ResumeSchedule', data: { now: '2026-01-02T00:00:00.000Z' } }).then([]);
    spec.given([added(), { type: 'ScheduleRemoved', data: { scheduleId: 's1' } }]).when({ type: 'PauseSchedule' }).thenRefuses('SCHEDULE_NOT_FOUND');
    spec.given([]).when({ type: 'RemoveSchedule' }).thenRefuses('SCHEDULE_NOT_FOUND');
  });

  it('names each firing\'s job by the schedule and the time, the same in every process', () => {
    expect(firingExecutionId('s1', '2026-01-01T01:00:00.000Z')).toBe(firingExecutionId('s1', '2026-01-01T01:00:00.000Z'));
    expect(firingExecutionId('s1', '2026-01-01T01:00:00.000Z')).not.toBe(firingExecutionId('s1', '2026-01-01T02:00:00.000Z'));
    expect(firingExecutionId('s1', '2026-01-01T01:00:00.000Z')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});

describe('what a schedule owes at a time (firingPlan)', () => {
  it('fires the time just passed, not a future one', () => {
    const plan = firingPlan(stateOf([added()]), new Date('2026-01-01T01:00:05Z'), rules);
    expect(plan).toEqual({ skip: null, fire: [{ scheduledFor: '2026-01-01T01:00:00.000Z', late: false }] });
    expect(firingPlan(stateOf([added()]), new Date('2026-01-01T00:59:59Z'), rules)).toEqual({ skip: null, fire: [] });
  });

  it('runs missed firings late, oldest first, under `run`, skipping those past the catch-up cap', () => {
    const plan = firingPlan(stateOf([added()]), new Date('2026-01-01T05:00:30Z'), rules);
    expect(plan.fire).toEqual([
      { scheduledFor: '2026-01-01T02:00:00.000Z', late: true },
      { scheduledFor: '2026-01-01T03:00:00.000Z', late: true },
      { scheduledFor: '2026-01-01T04:00:00.000Z', late: true },
      { scheduledFor: '2026-01-01T05:00:00.000Z', late: false },
    ]);
    expect(plan.skip).toEqual({ first: '2026-01-01T01:00:00.000Z', last: '2026-01-01T01:00:00.000Z', count: 1, reason: 'too_many' });
  });

  it('records missed firings skipped under `skip`, and still fires the one on time', () => {
    const plan = firingPlan(stateOf([added({ missed: 'skip' })]), new Date('2026-01-01T05:00:30Z'), rules);
    expect(plan).toEqual({ skip: { first: '2026-01-01T01:00:00.000Z', last: '2026-01-01T04:00:00.000Z', count: 4, reason: 'missed' }, fire: [{ scheduledFor: '2026-01-01T05:00:00.000Z', late: false }] });
  });

  it('reads the expression in its time zone, daylight saving included', () => {
    const paris = stateOf([added({ cron: '0 7 * * *', timezone: 'Europe/Paris', firstAfter: '2026-03-28T12:00:00.000Z' })]);
    // 07:00 in Paris is 06:00 UTC before the change (29 March 2026) and 05:00 UTC after it.
    expect(firingPlan(paris, new Date('2026-03-29T05:00:10Z'), rules).fire).toEqual([{ scheduledFor: '2026-03-29T05:00:00.000Z', late: false }]);
    expect(nextFiring({ cron: '0 7 * * *', timezone: 'Europe/Paris', seed: 's' }, new Date('2026-03-27T12:00:00Z'))).toEqual(new Date('2026-03-28T06:00:00Z'));
  });

  it('accounts for every due time exactly once, whatever the times the sweeps run at (property)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('*/7 * * * *', '0 * * * *', '15,45 */2 * * *', '*/30 * * * * *'),
        fc.constantFrom<'run' | 'skip'>('run', 'skip'),
        fc.array(fc.integer({ min: 1, max: 2 * 3_600_000 }), { minLength: 1, maxLength: 8 }),
        (cron, missed, gaps) => {
          let state = fold(schedule, [added({ cron, missed })]);
          const apply = (events: ScheduleEvent[]) => (state = events.reduce(schedule.evolve, state));
          let now = Date.parse('2026-01-01T00:00:00Z');
          const accounted: string[] = [];
          for (const gap of gaps) {
            now += gap;
            if (state.status === 'none') throw new Error('no schedule');
            const plan = firingPlan(state, new Date(now), { missedAfterMs: 60_000, maxCatchUp: 1_000 });
            if (plan.skip) {
              apply(schedule.decide({ type: 'SkipFirings', data: plan.skip }, state));
              accounted.push(...firingsBetween({ cron, timezone: 'UTC', seed: 's1' }, new Date(new Date(plan.skip.first).getTime() - 1), new Date(plan.skip.last), 100_000).times.map((t) => t.toISOString()));
            }
            for (const f of plan.fire) {
              const produced = schedule.decide(record(f.scheduledFor), state);
              expect(produced).toHaveLength(1);
              apply(produced);
              accounted.push(f.scheduledFor);
            }
          }
          const due = firingsBetween({ cron, timezone: 'UTC', seed: 's1' }, new Date('2026-01-01T00:00:00Z'), new Date(now), 100_000).times.map((t) => t.toISOString());
          expect(accounted).toEqual(due);
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe("a schedule's parts are checked when it is added", () => {
  it('refuses an expression or a time zone that cannot be read, naming which', () => {
    expect(() => checkCronSchedule({ cron: '61 * * * *', timezone: 'UTC', seed: 's' })).toThrow(/cron: "61 \* \* \* \*" cannot be read/);
    expect(() => checkCronSchedule({ cron: '* * * * * * *', timezone: 'UTC', seed: 's' })).toThrow(/too many fields/);
    expect(() => checkCronSchedule({ cron: '0 7 * * *', timezone: 'Mars/Olympus', seed: 's' })).toThrow(/timezone: 'Mars\/Olympus' is not an IANA time zone/);
  });

  it('takes an input as a /jobs body has it, and refuses anything else by name', () => {
    expect(parseScheduleInput({ message: 'm', parameters: { n: 1 } })).toEqual({ message: 'm', parameters: { n: 1 }, attachments: [] });
    expect(() => parseScheduleInput({ parameters: {} })).toThrow(/input\.message/);
    expect(() => parseScheduleInput({ message: 'm', tools: [] })).toThrow(/tools/);
    expect(() => parseScheduleInput({ message: 'a\u0000b' })).toThrow(expect.objectContaining({ code: 'INVALID_TEXT' }));
    expect(() => parseScheduleInput({ message: 'm', parameters: { attachments: 1 } })).toThrow(expect.objectContaining({ code: 'PARAMETER_NAME_RESERVED' }));
    expect(() => parseScheduleInput('m')).toThrow(expect.objectContaining({ code: 'VALIDATION_FAILED' }));
  });
});
