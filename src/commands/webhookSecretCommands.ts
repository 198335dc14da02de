import { randomBytes } from 'node:crypto';
import { organization, type WebhookSecretState } from '../domain/organizations/organization.ts';
import { organizationStream } from '../domain/organizations/organizationEvents.ts';
import { decryptSecret, encryptSecret } from '../security/secretBox.ts';
import type { KnownOrganization } from '../caches/organizationStates.ts';
import { type CommandDependencies, type CommandMetadata, handleCommand } from './commandHandler.ts';

/** `whsec_` and 32 random bytes; the preview shows the first 10 characters and a fixed mask. */
const newSecret = () => `whsec_${randomBytes(32).toString('base64url')}`;
const SECRET_MASK = '••••••••';
const preview = (secret: string) => `${secret.slice(0, 10)}${SECRET_MASK}`;

export interface WebhookSecretView {
  secretPreview: string;
  version: number;
  createdAt: string;
  rotatedAt: string | null;
  graceUntil: string | null;
}

const view = (secret: WebhookSecretState, now: Date): WebhookSecretView => ({
  secretPreview: secret.secretPreview,
  version: secret.version,
  createdAt: secret.createdAt,
  rotatedAt: secret.rotatedAt,
  // Shown while the previous secret still signs v2.
  graceUntil: secret.graceUntil && Date.parse(secret.graceUntil) > now.getTime() ? secret.graceUntil : null,
});

/** The organization's secret state, issuing version 1 first if it has none; `known`: the organization as the caller holds it (saves the read). */
async function ensureSecret(deps: CommandDependencies, organizationId: string, masterKey: Buffer, metadata: CommandMetadata, known?: KnownOrganization) {
  const secret = newSecret();
  const result = await handleCommand(
    deps,
    organizationStream(organizationId),
    organization,
    { type: 'EnsureWebhookSecret', data: { encryptedSecret: encryptSecret(secret, masterKey), secretPreview: preview(secret), now: deps.now().toISOString() } },
    metadata,
    known,
  );
  return (result.state as { webhookSecret: WebhookSecretState }).webhookSecret;
}

/** The organization's secret, issued on first fetch. */
export async function getWebhookSecret(deps: CommandDependencies, organizationId: string, masterKey: Buffer, metadata: CommandMetadata): Promise<WebhookSecretView> {
  return view(await ensureSecret(deps, organizationId, masterKey, metadata), deps.now());
}

/** A new secret, atomically: of two concurrent rotations one fails with CONFLICT. The plaintext is returned only here. */
export async function rotateWebhookSecret(
  deps: CommandDependencies,
  organizationId: string,
  masterKey: Buffer,
  graceSeconds: number,
  metadata: CommandMetadata,
): Promise<WebhookSecretView & { newSecret: string }> {
  const secret = newSecret();
  const now = deps.now();
  const result = await handleCommand(
    deps,
    organizationStream(organizationId),
    organization,
    {
      type: 'RotateWebhookSecret',
      data: { encryptedSecret: encryptSecret(secret, masterKey), secretPreview: preview(secret), now: now.toISOString(), graceUntil: new Date(now.getTime() + graceSeconds * 1000).toISOString() },
    },
    { ...metadata, retryOnConflict: false },
  );
  return { newSecret: secret, ...view((result.state as { webhookSecret: WebhookSecretState }).webhookSecret, now) };
}

/** The secrets a delivery is signed with now (issued on first use): current, and previous while the grace window lasts. */
export async function signingSecrets(
  deps: CommandDependencies,
  organizationId: string,
  masterKey: Buffer,
  metadata: CommandMetadata,
  known?: KnownOrganization,
): Promise<{ current: string; previous: string | null; versions: number[] }> {
  const secret = await ensureSecret(deps, organizationId, masterKey, metadata, known);
  const inGrace = secret.previous && secret.graceUntil && Date.parse(secret.graceUntil) > deps.now().getTime();
  return {
    current: decryptSecret(secret.encryptedSecret, masterKey),
    previous: inGrace ? decryptSecret(secret.previous!.encryptedSecret, masterKey) : null,
    versions: inGrace ? [secret.version, secret.previous!.version] : [secret.version],
  };
}
