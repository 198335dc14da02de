import type { Decider } from '../decider.ts';
import { ApiError } from '../errors/apiError.ts';
import type { ApiKeyEnvironment } from './apiKeyFormat.ts';
import type { ApiKeyEvent } from './apiKeyEvents.ts';

export type ApiKeyState =
  | { status: 'none' }
  | {
      status: 'active' | 'revoked';
      keyId: string;
      projectId: string;
      organizationId: string;
      environment: ApiKeyEnvironment;
      secretHash: string;
    };

export type ApiKeyCommand =
  | {
      type: 'CreateApiKey';
      data: { keyId: string; projectId: string; organizationId: string; environment: ApiKeyEnvironment; keyPrefix: string; secretHash: string };
    }
  | { type: 'RevokeApiKey'; data: { keyId: string } };

export const apiKey: Decider<ApiKeyCommand, ApiKeyEvent, ApiKeyState> = {
  initialState: () => ({ status: 'none' }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'ApiKeyCreated': {
        const { keyId, projectId, organizationId, environment, secretHash } = event.data;
        return { status: 'active', keyId, projectId, organizationId, environment, secretHash };
      }
      case 'ApiKeyRevoked':
        return state.status === 'none' ? state : { ...state, status: 'revoked' };
    }
  },
  decide: (command, state) => {
    switch (command.type) {
      case 'CreateApiKey':
        if (state.status !== 'none') throw new ApiError('CONFLICT', `API key ${command.data.keyId} already exists`);
        return [{ type: 'ApiKeyCreated', data: command.data }];
      case 'RevokeApiKey':
        if (state.status === 'none') throw new ApiError('API_KEY_NOT_FOUND', `API key ${command.data.keyId} not found`);
        if (state.status === 'revoked') return [];
        return [{ type: 'ApiKeyRevoked', data: { keyId: state.keyId, projectId: state.projectId } }];
    }
  },
};
