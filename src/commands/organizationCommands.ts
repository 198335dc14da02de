import { PROVIDERS, isProvider } from '../domain/models/modelRoute.ts';
import { randomUUID } from 'node:crypto';
import { ApiError } from '../domain/errors/apiError.ts';
import { type MemberRole, memberRoleSchema } from '../domain/organizations/memberRole.ts';
import { organization } from '../domain/organizations/organization.ts';
import { organizationStream } from '../domain/organizations/organizationEvents.ts';
import { type CommandDependencies, type CommandMetadata, handleCommand, withCorrelation } from './commandHandler.ts';
import { encryptSecret } from '../security/secretBox.ts';
import { requireSlugOwner } from './slugLookup.ts';
import { reserveSlug } from './slugReservationCommands.ts';

const requireName = (name: string) => {
  if (!name.trim()) throw new ApiError('VALIDATION_FAILED', 'name must not be empty');
  return name.trim();
};

export async function createOrganization(
  deps: CommandDependencies,
  input: { slug: string; name: string; initialCredits?: number },
  callerMetadata: CommandMetadata,
) {
  const metadata = withCorrelation(callerMetadata);
  const name = requireName(input.name);
  const id = await reserveSlug(deps, 'organization', null, input.slug, randomUUID(), organizationStream, metadata);
  const result = await handleCommand(deps, organizationStream(id), organization, { type: 'CreateOrganization', data: { organizationId: id, slug: input.slug, name, initialCredits: input.initialCredits ?? deps.defaultCredits ?? 0 } }, metadata);
  return { id, slug: input.slug, position: result.position };
}

export const findOrganizationId = (deps: CommandDependencies, slug: string) =>
  requireSlugOwner(deps.eventStore, 'organization', null, slug, organizationStream);

export async function addMember(
  deps: CommandDependencies,
  input: { organizationSlug: string; userSubject: string; role: string },
  metadata: CommandMetadata,
) {
  const role = memberRoleSchema.safeParse(input.role);
  if (!role.success) throw new ApiError('MEMBER_ROLE_INVALID', `role must be one of owner, admin, member (got '${input.role}')`);
  if (!input.userSubject.trim()) throw new ApiError('VALIDATION_FAILED', 'user subject must not be empty');
  const organizationId = await findOrganizationId(deps, input.organizationSlug);
  const result = await handleCommand(
    deps,
    organizationStream(organizationId),
    organization,
    { type: 'AddMember', data: { userSubject: input.userSubject, role: role.data as MemberRole } },
    metadata,
  );
  return { organizationId, userSubject: input.userSubject, role: role.data, position: result.position };
}

export async function grantCredits(deps: CommandDependencies, input: { organizationSlug: string; tokens: number; note?: string | null }, metadata: CommandMetadata) {
  const organizationId = await findOrganizationId(deps, input.organizationSlug);
  const result = await handleCommand(deps, organizationStream(organizationId), organization, { type: 'GrantCredits', data: { tokens: input.tokens, note: input.note ?? null } }, metadata);
  return { organizationId, granted: input.tokens, position: result.position };
}

/**
 * Stores the organization's own key with a model provider (default `openai`), encrypted under the
 * master key; returns only a hint of it. An Azure key is for one resource: its endpoint is needed.
 */
export async function setProviderKey(
  deps: CommandDependencies,
  input: { organizationSlug: string; key: string; baseUrl?: string | null; provider?: string },
  masterKey: Buffer,
  metadata: CommandMetadata,
) {
  if (!input.key.trim()) throw new ApiError('VALIDATION_FAILED', 'key must not be empty');
  const provider = input.provider ?? 'openai';
  if (!isProvider(provider)) throw new ApiError('VALIDATION_FAILED', `provider must be one of ${PROVIDERS.join(', ')} (got '${provider}')`);
  const baseUrl = input.baseUrl ?? null;
  if (baseUrl !== null && !(URL.canParse(baseUrl) && /^https?:$/.test(new URL(baseUrl).protocol))) {
    throw new ApiError('VALIDATION_FAILED', `base URL must be an http(s) URL (got '${baseUrl}')`);
  }
  if (provider === 'azure' && baseUrl === null) throw new ApiError('VALIDATION_FAILED', "an Azure OpenAI key is for one resource: give its endpoint as the base URL (--base-url https://<resource>.openai.azure.com)");
  const organizationId = await findOrganizationId(deps, input.organizationSlug);
  const keyHint = `…${input.key.trim().slice(-4)}`;
  const result = await handleCommand(
    deps,
    organizationStream(organizationId),
    organization,
    { type: 'SetProviderKey', data: { provider, encryptedKey: encryptSecret(input.key.trim(), masterKey), keyHint, baseUrl } },
    metadata,
  );
  return { organizationId, provider, keyHint, baseUrl, position: result.position };
}
