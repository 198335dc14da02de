import type { Decider } from '../decider.ts';
import { ApiError } from '../errors/apiError.ts';
import { MAX_RETENTION_DAYS, type RetentionEvent } from './retentionEvents.ts';

/** An organization's retention periods: its own, and each project's that was set. */
export interface RetentionState {
  organization: number | null;
  projects: ReadonlyMap<string, number | null>;
}

export type RetentionCommand = { type: 'SetRetention'; data: { organizationId: string; projectId: string | null; runDays: number | null } };

/**
 * Setting a retention period: any whole number of days from 1 to 100 years, or none. Setting the
 * period a scope already has records nothing. The project belongs to the organization: the caller
 * checks that (a read model question), this decides the period.
 */
export const retention: Decider<RetentionCommand, RetentionEvent, RetentionState> = {
  initialState: () => ({ organization: null, projects: new Map() }),
  evolve: (state, event) =>
    event.data.projectId === null ? { ...state, organization: event.data.runDays } : { ...state, projects: new Map(state.projects).set(event.data.projectId, event.data.runDays) },
  decide: (command, state) => {
    const { projectId, runDays } = command.data;
    if (runDays !== null && !(Number.isInteger(runDays) && runDays >= 1 && runDays <= MAX_RETENTION_DAYS)) {
      throw new ApiError('VALIDATION_FAILED', `a retention period is a whole number of days from 1 to ${MAX_RETENTION_DAYS}, or none`);
    }
    const current = projectId === null ? state.organization : (state.projects.get(projectId) ?? null);
    if (current === runDays) return [];
    return [{ type: 'RetentionPeriodSet', data: command.data }];
  },
};

/** `30d` (days), or `none` / `forever` (kept): the CLI's form of a period. */
export function parseRetentionPeriod(text: string): number | null {
  if (text === 'none' || text === 'forever') return null;
  const match = /^(\d{1,6})d$/.exec(text);
  const days = match ? Number(match[1]) : Number.NaN;
  if (!(days >= 1 && days <= MAX_RETENTION_DAYS)) throw new ApiError('VALIDATION_FAILED', `a retention period is written like 30d (days, 1 to ${MAX_RETENTION_DAYS}), or none (got '${text}')`);
  return days;
}

/** A run's period: its project's when set, else its organization's (null: kept). */
export const effectiveRunDays = (organizationDays: number | null, projectDays: number | null | undefined) => projectDays ?? organizationDays;
