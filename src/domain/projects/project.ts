import type { Decider } from '../decider.ts';
import { ApiError } from '../errors/apiError.ts';
import type { ProjectEvent } from './projectEvents.ts';

export type ProjectState =
  | { status: 'none' }
  | { status: 'created'; projectId: string; organizationId: string; slug: string; name: string };

export type ProjectCommand = {
  type: 'CreateProject';
  data: { projectId: string; organizationId: string; slug: string; name: string };
};

export const project: Decider<ProjectCommand, ProjectEvent, ProjectState> = {
  initialState: () => ({ status: 'none' }),
  evolve: (_state, event) => ({ status: 'created', ...event.data }),
  decide: (command, state) => {
    if (state.status === 'created') {
      if (state.slug === command.data.slug && state.organizationId === command.data.organizationId) return [];
      throw new ApiError('CONFLICT', `Project ${state.projectId} already exists`);
    }
    return [{ type: 'ProjectCreated', data: command.data }];
  },
};
