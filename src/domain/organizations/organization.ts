import type { Decider } from '../decider.ts';
import { ApiError } from '../errors/apiError.ts';
import type { MemberRole } from './memberRole.ts';
import type { EncryptedSecret, OrganizationEvent } from './organizationEvents.ts';
import type { ProviderName } from '../models/modelRoute.ts';
import { SECRETS_MAX, secretNameProblem } from '../secrets/secretRules.ts';

export type OrganizationState =
  | { status: 'none' }
  | {
      status: 'created';
      organizationId: string;
      slug: string;
      name: string;
      /** By user subject: a Map, so no subject ("__proto__", "constructor"...) can match an inherited property. */
      members: ReadonlyMap<string, MemberRole>;
      /** The organization's own keys, by provider. */
      providerKeys: Partial<Record<ProviderName, { encryptedKey: EncryptedSecret; keyHint: string; baseUrl: string | null }>>;
      webhookSecret: WebhookSecretState | null;
      /** The secrets its requests name, by name (a Map: no name can match an inherited property). */
      secrets: ReadonlyMap<string, OrganizationSecretState>;
    };

export interface OrganizationSecretState {
  version: number;
  encryptedValue: EncryptedSecret;
  setAt: string;
}

export interface WebhookSecretState {
  version: number;
  encryptedSecret: EncryptedSecret;
  secretPreview: string;
  createdAt: string;
  rotatedAt: string | null;
  graceUntil: string | null;
  previous: { version: number; encryptedSecret: EncryptedSecret } | null;
}

export type OrganizationCommand =
  | { type: 'CreateOrganization'; data: { organizationId: string; slug: string; name: string; initialCredits: number } }
  | { type: 'AddMember'; data: { userSubject: string; role: MemberRole } }
  | { type: 'GrantCredits'; data: { tokens: number; note: string | null } }
  | { type: 'SetProviderKey'; data: { provider: ProviderName; encryptedKey: EncryptedSecret; keyHint: string; baseUrl: string | null } }
  /** Issues version 1 unless a secret exists. */
  | { type: 'EnsureWebhookSecret'; data: { encryptedSecret: EncryptedSecret; secretPreview: string; now: string } }
  | { type: 'RotateWebhookSecret'; data: { encryptedSecret: EncryptedSecret; secretPreview: string; now: string; graceUntil: string } }
  /** The value is encrypted by the caller: the decider never sees it. */
  | { type: 'SetSecret'; data: { name: string; encryptedValue: EncryptedSecret; now: string } }
  | { type: 'DeleteSecret'; data: { name: string; now: string } };

export const organization: Decider<OrganizationCommand, OrganizationEvent, OrganizationState> = {
  initialState: () => ({ status: 'none' }),

  evolve: (state, event) => {
    switch (event.type) {
      case 'OrganizationCreated':
        return { status: 'created', ...event.data, members: new Map(), providerKeys: {}, webhookSecret: null, secrets: new Map() };
      case 'CreditsGranted':
        return state;
      case 'WebhookSecretIssued': {
        if (state.status !== 'created') return state;
        const { version, encryptedSecret, secretPreview, issuedAt, graceUntil } = event.data;
        const previous = state.webhookSecret;
        return {
          ...state,
          webhookSecret: {
            version,
            encryptedSecret,
            secretPreview,
            createdAt: issuedAt,
            rotatedAt: previous ? issuedAt : null,
            graceUntil,
            previous: previous ? { version: previous.version, encryptedSecret: previous.encryptedSecret } : null,
          },
        };
      }
      case 'ProviderKeySet': {
        if (state.status !== 'created') return state;
        const { provider, encryptedKey, keyHint, baseUrl } = event.data;
        return { ...state, providerKeys: { ...state.providerKeys, [provider]: { encryptedKey, keyHint, baseUrl } } };
      }
      case 'SecretSet': {
        if (state.status !== 'created') return state;
        const { name, version, encryptedValue, setAt } = event.data;
        return { ...state, secrets: new Map(state.secrets).set(name, { version, encryptedValue, setAt }) };
      }
      case 'SecretDeleted': {
        if (state.status !== 'created') return state;
        const secrets = new Map(state.secrets);
        secrets.delete(event.data.name);
        return { ...state, secrets };
      }
      case 'MemberAdded':
      case 'MemberRoleChanged':
        if (state.status !== 'created') return state;
        return { ...state, members: new Map(state.members).set(event.data.userSubject, event.data.role) };
    }
  },

  decide: (command, state) => {
    switch (command.type) {
      case 'CreateOrganization': {
        const { initialCredits, ...created } = command.data;
        if (state.status === 'created') {
          // A retried creation of the same organization is a no-op; anything else is a conflict.
          if (state.slug === created.slug && state.name === created.name) return [];
          throw new ApiError('CONFLICT', `Organization ${state.organizationId} already exists`);
        }
        const grant: OrganizationEvent[] =
          initialCredits > 0 ? [{ type: 'CreditsGranted', data: { organizationId: created.organizationId, tokens: initialCredits, note: 'initial credits' } }] : [];
        return [{ type: 'OrganizationCreated', data: created }, ...grant];
      }

      case 'GrantCredits': {
        if (state.status !== 'created') throw new ApiError('ORGANIZATION_NOT_FOUND', 'Organization not found');
        if (!Number.isInteger(command.data.tokens) || command.data.tokens < 1) {
          throw new ApiError('VALIDATION_FAILED', 'credits are granted in whole tokens, at least 1');
        }
        return [{ type: 'CreditsGranted', data: { organizationId: state.organizationId, ...command.data } }];
      }

      case 'EnsureWebhookSecret': {
        if (state.status !== 'created') throw new ApiError('ORGANIZATION_NOT_FOUND', 'Organization not found');
        if (state.webhookSecret) return [];
        const { encryptedSecret, secretPreview, now } = command.data;
        return [{ type: 'WebhookSecretIssued', data: { organizationId: state.organizationId, version: 1, encryptedSecret, secretPreview, issuedAt: now, graceUntil: null } }];
      }

      case 'RotateWebhookSecret': {
        if (state.status !== 'created') throw new ApiError('ORGANIZATION_NOT_FOUND', 'Organization not found');
        const { encryptedSecret, secretPreview, now, graceUntil } = command.data;
        const version = (state.webhookSecret?.version ?? 0) + 1;
        // The first secret has nothing to overlap with: no grace window.
        return [{ type: 'WebhookSecretIssued', data: { organizationId: state.organizationId, version, encryptedSecret, secretPreview, issuedAt: now, graceUntil: state.webhookSecret ? graceUntil : null } }];
      }

      case 'SetProviderKey': {
        if (state.status !== 'created') throw new ApiError('ORGANIZATION_NOT_FOUND', 'Organization not found');
        return [{ type: 'ProviderKeySet', data: { organizationId: state.organizationId, ...command.data } }];
      }

      case 'SetSecret': {
        if (state.status !== 'created') throw new ApiError('ORGANIZATION_NOT_FOUND', 'Organization not found');
        const { name, encryptedValue, now } = command.data;
        const problem = secretNameProblem(name);
        if (problem) throw new ApiError('VALIDATION_FAILED', problem);
        const current = state.secrets.get(name);
        if (!current && state.secrets.size >= SECRETS_MAX) throw new ApiError('VALIDATION_FAILED', `an organization holds at most ${SECRETS_MAX} secrets: delete one first`);
        // Versions go on from the last one this name had while it exists; a deleted name starts again at 1.
        return [{ type: 'SecretSet', data: { organizationId: state.organizationId, name, version: (current?.version ?? 0) + 1, encryptedValue, setAt: now } }];
      }

      case 'DeleteSecret': {
        if (state.status !== 'created') throw new ApiError('ORGANIZATION_NOT_FOUND', 'Organization not found');
        if (!state.secrets.has(command.data.name)) throw new ApiError('SECRET_NOT_FOUND', `the organization has no secret '${command.data.name.slice(0, 80)}'`);
        return [{ type: 'SecretDeleted', data: { organizationId: state.organizationId, name: command.data.name, deletedAt: command.data.now } }];
      }

      case 'AddMember': {
        if (state.status !== 'created') throw new ApiError('ORGANIZATION_NOT_FOUND', 'Organization not found');
        const current = state.members.get(command.data.userSubject);
        const data = { organizationId: state.organizationId, ...command.data };
        if (current === command.data.role) return [];
        if (current === undefined) return [{ type: 'MemberAdded', data }];
        return [{ type: 'MemberRoleChanged', data: { ...data, previousRole: current } }];
      }
    }
  },
};
