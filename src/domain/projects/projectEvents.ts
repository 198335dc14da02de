import { z } from 'zod';
import { aName, anId } from '../privacy/operationalText.ts';
import { defineEvent, type EventOf } from '../events/eventDefinition.ts';

export const ProjectCreated = defineEvent(
  'ProjectCreated',
  1,
  z.object({ projectId: anId(), organizationId: anId(), slug: aName(), name: aName() }),
);
export type ProjectEvent = EventOf<typeof ProjectCreated>;

export const projectStream = (projectId: string) => `project-${projectId}`;
