import type { Decider } from '../decider.ts';
import { ApiError } from '../errors/apiError.ts';
import type { ScheduleEvent } from './scheduleEvents.ts';

type Added = Extract<ScheduleEvent, { type: 'ScheduleAdded' }>['data'];

export type ScheduleState =
  | { status: 'none' }
  | (Added & {
      status: 'active' | 'paused' | 'removed';
      /** Every firing at or before this time is accounted for (fired, skipped, or before the schedule or its resume). */
      after: string;
    });

export type ScheduleCommand =
  | { type: 'AddSchedule'; data: Added }
  | { type: 'PauseSchedule' }
  | { type: 'ResumeSchedule'; data: { now: string } }
  | { type: 'RemoveSchedule' }
  | { type: 'RecordFiring'; data: { scheduledFor: string; executionId: string | null; error: { code: string; message: string } | null; late: boolean } }
  | { type: 'SkipFirings'; data: { first: string; last: string; count: number | null; reason: 'missed' | 'too_many' } };

const later = (a: string, b: string) => (Date.parse(a) >= Date.parse(b) ? a : b);
const notFound = () => new ApiError('SCHEDULE_NOT_FOUND', 'Schedule not found');

/**
 * A schedule's life, and the rule that makes each firing happen once: a firing (or a skip) is
 * recorded only for times after every one already accounted for. Two workers that fire the same
 * time both decide on the stream; the second decides again on the first's event (a conflict on
 * append) and records nothing. A firing whose job was started is recorded even when a pause or a
 * removal came in between, so the log accounts for every job; one with no job is not, once the
 * schedule stopped.
 */
export const schedule: Decider<ScheduleCommand, ScheduleEvent, ScheduleState> = {
  initialState: () => ({ status: 'none' }),

  evolve: (state, event) => {
    if (event.type === 'ScheduleAdded') return { ...event.data, status: 'active', after: event.data.firstAfter };
    if (state.status === 'none') return state;
    switch (event.type) {
      case 'SchedulePaused':
        return { ...state, status: 'paused' };
      case 'ScheduleResumed':
        return { ...state, status: 'active', after: later(state.after, event.data.resumedAt) };
      case 'ScheduleRemoved':
        return { ...state, status: 'removed' };
      case 'ScheduleFired':
        return { ...state, after: later(state.after, event.data.scheduledFor) };
      case 'ScheduleFiringsSkipped':
        return { ...state, after: later(state.after, event.data.last) };
    }
  },

  decide: (command, state) => {
    switch (command.type) {
      case 'AddSchedule':
        if (state.status === 'none') return [{ type: 'ScheduleAdded', data: command.data }];
        // A retried add of the same schedule changes nothing.
        if (state.scheduleId === command.data.scheduleId && state.cron === command.data.cron && state.flowId === command.data.flowId) return [];
        throw new ApiError('CONFLICT', `Schedule ${state.scheduleId} already exists`);
      case 'PauseSchedule':
        if (state.status === 'none' || state.status === 'removed') throw notFound();
        return state.status === 'paused' ? [] : [{ type: 'SchedulePaused', data: { scheduleId: state.scheduleId } }];
      case 'ResumeSchedule':
        if (state.status === 'none' || state.status === 'removed') throw notFound();
        return state.status === 'active' ? [] : [{ type: 'ScheduleResumed', data: { scheduleId: state.scheduleId, resumedAt: command.data.now } }];
      case 'RemoveSchedule':
        if (state.status === 'none') throw notFound();
        return state.status === 'removed' ? [] : [{ type: 'ScheduleRemoved', data: { scheduleId: state.scheduleId } }];
      case 'RecordFiring': {
        if (state.status === 'none') throw notFound();
        if (Date.parse(command.data.scheduledFor) <= Date.parse(state.after)) return [];
        if (state.status !== 'active' && command.data.executionId === null) return [];
        return [{ type: 'ScheduleFired', data: { scheduleId: state.scheduleId, ...command.data } }];
      }
      case 'SkipFirings': {
        if (state.status !== 'active') return [];
        if (Date.parse(command.data.last) <= Date.parse(state.after)) return [];
        return [{ type: 'ScheduleFiringsSkipped', data: { scheduleId: state.scheduleId, ...command.data } }];
      }
    }
  },
};
