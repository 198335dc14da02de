import { z } from 'zod';
import { defineEvent, type EventOf } from '../events/eventDefinition.ts';
import { memberRoleSchema } from './memberRole.ts';
import { PROVIDERS } from '../models/modelRoute.ts';

export const OrganizationCreated = defineEvent(
  'OrganizationCreated',
  1,
  z.object({ organizationId: z.string(), slug: z.string(), name: z.string() }),
);
export const MemberAdded = defineEvent(
  'MemberAdded',
  1,
  z.object({ organizationId: z.string(), userSubject: z.string(), role: memberRoleSchema }),
);
export const MemberRoleChanged = defineEvent(
  'MemberRoleChanged',
  1,
  z.object({ organizationId: z.string(), userSubject: z.string(), role: memberRoleSchema, previousRole: memberRoleSchema }),
);

/** Credits are counted in tokens as reported by the model provider. */
export const CreditsGranted = defineEvent(
  'CreditsGranted',
  1,
  z.object({ organizationId: z.string(), tokens: z.number().int().min(1), note: z.string().nullable() }),
);

/** AES-256-GCM ciphertext of a secret under the master key; never the plaintext. */
export const encryptedSecretSchema = z.object({ iv: z.string(), tag: z.string(), ciphertext: z.string() });
export type EncryptedSecret = z.infer<typeof encryptedSecretSchema>;

/**
 * The organization's own key with a model provider ("bring your own key"), encrypted. Version 2 names
 * the provider; version 1 keys were for the default (OpenAI-compatible) provider and are upcast so.
 */
export const ProviderKeySet = defineEvent(
  'ProviderKeySet',
  2,
  z.object({ organizationId: z.string(), provider: z.enum(PROVIDERS), encryptedKey: encryptedSecretSchema, keyHint: z.string(), baseUrl: z.string().nullable() }),
);

/**
 * The organization's webhook signing secret, version 1 on first fetch and one more per rotation; the
 * previous secret stays valid for signing v2 until `graceUntil`. Only ciphertext reaches the log.
 */
export const WebhookSecretIssued = defineEvent(
  'WebhookSecretIssued',
  1,
  z.object({
    organizationId: z.string(),
    version: z.number().int().min(1),
    encryptedSecret: encryptedSecretSchema,
    secretPreview: z.string(),
    issuedAt: z.iso.datetime(),
    graceUntil: z.iso.datetime().nullable(),
  }),
);

export type OrganizationEvent =
  | EventOf<typeof OrganizationCreated>
  | EventOf<typeof MemberAdded>
  | EventOf<typeof MemberRoleChanged>
  | EventOf<typeof CreditsGranted>
  | EventOf<typeof ProviderKeySet>
  | EventOf<typeof WebhookSecretIssued>;

export const organizationStream = (organizationId: string) => `org-${organizationId}`;
