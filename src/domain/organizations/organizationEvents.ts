import { z } from 'zod';
import { operational } from '../privacy/dataClass.ts';
import { aName, aSubject, anId } from '../privacy/operationalText.ts';
import { defineEvent, type EventOf } from '../events/eventDefinition.ts';
import { memberRoleSchema } from './memberRole.ts';
import { PROVIDERS } from '../models/modelRoute.ts';

export const OrganizationCreated = defineEvent(
  'OrganizationCreated',
  1,
  z.object({ organizationId: anId(), slug: aName(), name: aName() }),
);
export const MemberAdded = defineEvent(
  'MemberAdded',
  1,
  z.object({ organizationId: anId(), userSubject: aSubject(), role: memberRoleSchema }),
);
export const MemberRoleChanged = defineEvent(
  'MemberRoleChanged',
  1,
  z.object({ organizationId: anId(), userSubject: aSubject(), role: memberRoleSchema, previousRole: memberRoleSchema }),
);

/** Credits are counted in tokens as reported by the model provider. */
export const CreditsGranted = defineEvent(
  'CreditsGranted',
  1,
  z.object({ organizationId: anId(), tokens: z.number().int().min(1), note: operational(z.string().nullable(), "the operator's note on a grant of credits: about the account, not a run") }),
);

/** AES-256-GCM ciphertext of a secret under the master key; never the plaintext. */
export const encryptedSecretSchema = operational(z.object({ iv: z.string(), tag: z.string(), ciphertext: z.string() }), 'ciphertext under the master key: nothing readable without it, and no run data');
export type EncryptedSecret = z.infer<typeof encryptedSecretSchema>;

/**
 * The organization's own key with a model provider ("bring your own key"), encrypted. Version 2 names
 * the provider; version 1 keys were for the default (OpenAI-compatible) provider and are upcast so.
 */
export const ProviderKeySet = defineEvent(
  'ProviderKeySet',
  2,
  z.object({
    organizationId: anId(),
    provider: z.enum(PROVIDERS),
    encryptedKey: encryptedSecretSchema,
    keyHint: operational(z.string(), "the key's last characters, to tell keys apart: not enough to use it"),
    baseUrl: operational(z.string().nullable(), "the provider's address the organization configured"),
  }),
);

/**
 * The organization's webhook signing secret, version 1 on first fetch and one more per rotation; the
 * previous secret stays valid for signing v2 until `graceUntil`. Only ciphertext reaches the log.
 */
export const WebhookSecretIssued = defineEvent(
  'WebhookSecretIssued',
  1,
  z.object({
    organizationId: anId(),
    version: z.number().int().min(1),
    encryptedSecret: encryptedSecretSchema,
    secretPreview: operational(z.string(), "the secret's masked preview the spec shows any member: not enough to sign"),
    issuedAt: z.iso.datetime(),
    graceUntil: z.iso.datetime().nullable(),
  }),
);

/**
 * An organization's secret set, or set anew (issue 61): a value its flows' requests name as
 * `{{secrets.<name>}}`, only ever in the log as ciphertext under the master key. Each setting of a
 * name is the next version: a rotation is this event again.
 */
export const SecretSet = defineEvent(
  'SecretSet',
  1,
  z.object({
    organizationId: anId(),
    name: aName(),
    version: z.number().int().min(1),
    encryptedValue: encryptedSecretSchema,
    setAt: z.iso.datetime(),
  }),
);

/** An organization's secret removed: requests that name it fail (HTTP_SECRET_MISSING) until it is set again. */
export const SecretDeleted = defineEvent(
  'SecretDeleted',
  1,
  z.object({ organizationId: anId(), name: aName(), deletedAt: z.iso.datetime() }),
);

export type OrganizationEvent =
  | EventOf<typeof OrganizationCreated>
  | EventOf<typeof MemberAdded>
  | EventOf<typeof MemberRoleChanged>
  | EventOf<typeof CreditsGranted>
  | EventOf<typeof ProviderKeySet>
  | EventOf<typeof WebhookSecretIssued>
  | EventOf<typeof SecretSet>
  | EventOf<typeof SecretDeleted>;

export const organizationStream = (organizationId: string) => `org-${organizationId}`;
