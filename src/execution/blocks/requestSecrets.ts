import type { HttpRequestTemplate } from '../../domain/blocks/http/httpConfig.ts';
import { secretsOfRequest } from '../../domain/blocks/http/renderedRequest.ts';
import { type SecretRedaction, secretRedaction } from '../../domain/secrets/secretRedaction.ts';
import { BlockFailure } from '../processors/blockFailure.ts';
import type { RunSession } from '../runContext.ts';

export interface RequestSecrets {
  /** The secrets the request names that the organization holds, decrypted, by name. */
  secrets: Record<string, string>;
  /** What everything recorded or shown of the request and its answer passes through. */
  redact: SecretRedaction;
  /** Those it names that the organization no longer holds. */
  missing: string[];
}

/**
 * The organization's secrets a request names (its URL's and headers'), read when it is about to be
 * sent, for an http block, an http server tool or an MCP server alike.
 */
export async function requestSecrets(session: RunSession, request: HttpRequestTemplate): Promise<RequestSecrets> {
  const named = secretsOfRequest(request);
  const secrets = await session.deps.secrets(session.run.organizationId, named);
  return { secrets, redact: secretRedaction(secrets), missing: named.filter((name) => !Object.prototype.hasOwnProperty.call(secrets, name)) };
}

/** `what` (an http block, a server tool, an MCP server) names secrets the organization does not hold: the flow's to fix. */
export const secretsMissing = (what: string, missing: readonly string[]) =>
  new BlockFailure('HTTP_SECRET_MISSING', `${what}: the organization has no secret ${missing.map((name) => `'${name}'`).join(', ')}; set it with seqflow secret set, or in the console`);
