import { z } from 'zod';
import { defineEvent, type EventOf } from '../events/eventDefinition.ts';

export const ProjectCreated = defineEvent(
  'ProjectCreated',
  1,
  z.object({ projectId: z.string(), organizationId: z.string(), slug: z.string(), name: z.string() }),
);
export type ProjectEvent = EventOf<typeof ProjectCreated>;

export const projectStream = (projectId: string) => `project-${projectId}`;
