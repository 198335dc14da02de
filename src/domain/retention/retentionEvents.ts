import { z } from 'zod';
import { anId } from '../privacy/operationalText.ts';
import { defineEvent, type EventOf } from '../events/eventDefinition.ts';

/** The longest period a retention may be set to: a hundred years. */
export const MAX_RETENTION_DAYS = 36_500;

/**
 * How long an organization (`projectId` null) or one of its projects keeps its runs' personal data:
 * `runDays` days after a run ended, then the retention sweep erases it (RunDataErased, trigger
 * `retention`). null: kept (for a project: the organization's period applies).
 */
export const RetentionPeriodSet = defineEvent(
  'RetentionPeriodSet',
  1,
  z.object({ organizationId: anId(), projectId: anId().nullable(), runDays: z.number().int().min(1).max(MAX_RETENTION_DAYS).nullable() }),
);

export type RetentionEvent = EventOf<typeof RetentionPeriodSet>;

/** One stream per organization holds its own period and its projects'. */
export const retentionStream = (organizationId: string) => `retention-${organizationId}`;
