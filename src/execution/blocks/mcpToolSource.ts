import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { RequestedToolCall } from '../../domain/execution/executionEvents.ts';
import { HTTP_TIMEOUT_DEFAULT_MS } from '../../domain/blocks/http/httpConfig.ts';
import { renderRequest } from '../../domain/blocks/http/renderedRequest.ts';
import { requestIdempotencyKey, serverToolCall } from '../../domain/blocks/http/requestIdempotencyKey.ts';
import type { McpServerTool } from '../../domain/blocks/llm/serverTools.ts';
import { RETRY_POLICIES } from '../../domain/retry/retryPolicy.ts';
import type { SecretRedaction } from '../../domain/secrets/secretRedaction.ts';
import type { Tool } from '../../domain/tools/toolDefinition.ts';
import { cappedReplies } from '../../outbound/cappedReply.ts';
import { retrying } from '../../supervision/retrying.ts';
import { BlockFailure } from '../processors/blockFailure.ts';
import type { BlockStep } from './blockRunner.ts';
import { requestSecrets, secretsMissing } from './requestSecrets.ts';
import { type StoredOAuth, oauthCredentials, parseStoredOAuth, storedOAuthValue } from '../../domain/blocks/llm/storedOAuth.ts';
import { secretRedaction } from '../../domain/secrets/secretRedaction.ts';
import { SIGN_IN_AGAIN, storedOAuthProvider } from './storedOAuthProvider.ts';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { OAuthError } from '@modelcontextprotocol/sdk/server/auth/errors.js';

/** How much of an MCP server's replies is read. */
const MCP_MAX_REPLY_BYTES = 1024 * 1024;
/** Where the idempotency key of a call goes: the call's `_meta` (MCP has no header for it). */
export const MCP_IDEMPOTENCY_META = 'io.seqflow/idempotency-key';

export interface McpToolSource {
  /** The allowed tools the server listed, as the model is offered them. */
  definitions: Tool[];
  call(call: RequestedToolCall, args: Record<string, unknown>, round: number): Promise<{ ok: boolean; text: string }>;
  redact: SecretRedaction;
  close(): Promise<void>;
}

/**
 * A remote MCP server's allowed tools for one block execution (issue 61): connected with the MCP
 * SDK's client over Streamable HTTP, every request through the outbound address guard (capped,
 * timed out, redirects refused), its headers rendered with the organization's secrets. Connecting
 * and listing are retried by the one policy (RETRY_POLICIES.httpRequest); a server that still
 * cannot be reached fails the step (MCP_SERVER_FAILED). An allowed tool the server does not list is
 * not offered.
 */
export async function connectMcpSource(step: BlockStep, source: McpServerTool): Promise<McpToolSource> {
  const { deps, run } = step.session;
  const request = { method: 'POST' as const, url: source.url, ...(source.headers ? { headers: source.headers } : {}) };
  const { secrets, missing } = await requestSecrets(step.session, request);
  if (missing.length > 0) throw secretsMissing(`the MCP server ${source.url}`, missing);
  const oauth = source.oauth ? await storedOAuthOf(step, source.oauth.tokens, source.url) : undefined;
  const redact = secretRedaction({ ...secrets, ...(oauth ? oauthCredentials(oauth) : {}) });
  const rendered = renderRequest(request, step.context, secrets);
  if ('problem' in rendered) throw new BlockFailure('HTTP_REQUEST_INVALID', `the MCP server's request cannot be sent: ${rendered.problem}`);
  const timeoutMs = source.timeout_ms ?? HTTP_TIMEOUT_DEFAULT_MS;
  const capped = cappedReplies(deps.http.fetch, MCP_MAX_REPLY_BYTES);
  const fetch = (url: string | URL, init?: RequestInit) => capped(url, { ...init, redirect: 'manual', signal: init?.signal ? AbortSignal.any([init.signal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs) });

  const connect = async (attempt: number) => {
    const client = new Client({ name: 'seqflow', version: '1' });
    // A retry reads the stored tokens again: another run may have refreshed (and rotated) them meanwhile.
    const authProvider = source.oauth ? storedOAuthProvider(attempt === 1 ? oauth! : await storedOAuthOf(step, source.oauth.tokens, source.url), (state) => deps.storeSecret(run.organizationId, source.oauth!.tokens, storedOAuthValue(state))) : undefined;
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(rendered.url), { fetch, requestInit: { headers: rendered.headers }, ...(authProvider ? { authProvider } : {}) }), { timeout: timeoutMs });
      const listed = await client.listTools(undefined, { timeout: timeoutMs });
      return { client, listed };
    } catch (error) {
      await client.close().catch(() => undefined);
      throw error;
    }
  };
  let opened: Awaited<ReturnType<typeof connect>>;
  let attempt = 0;
  try {
    opened = await retrying({ policy: RETRY_POLICIES.httpRequest, classify: () => 'retryable', ...deps.retryWaits }, () => connect(++attempt));
  } catch (error) {
    if (error instanceof BlockFailure) throw error;
    const refused = source.oauth !== undefined && (error instanceof UnauthorizedError || error instanceof OAuthError || String((error as Error).message).includes(SIGN_IN_AGAIN));
    const why = refused ? `refused the stored OAuth tokens (secret '${source.oauth!.tokens}') and they could not be refreshed: authorize the service again and store the new tokens` : 'could not be reached or listed its tools';
    throw new BlockFailure('MCP_SERVER_FAILED', `the MCP server ${source.url} ${why}`, { detail: redact.text((error as Error).message ?? String(error)) });
  }
  const { client, listed } = opened;
  const allowed = new Set(source.allowed_tools);
  const definitions: Tool[] = listed.tools
    .filter((tool) => allowed.has(tool.name))
    .map((tool) => ({ type: 'function', function: { name: tool.name, ...(tool.description ? { description: tool.description } : {}), parameters: tool.inputSchema as Record<string, unknown> } }));
  return {
    definitions,
    redact,
    async call(call, args, round) {
      const key = requestIdempotencyKey({ executionId: run.executionId, stepIndex: step.stepIndex, blockName: step.block.name, iteration: step.iteration, call: serverToolCall(round, call.name, args) });
      try {
        const result = await client.callTool({ name: call.name, arguments: args, _meta: { [MCP_IDEMPOTENCY_META]: key } }, undefined, { timeout: timeoutMs });
        const content = 'content' in result && Array.isArray(result.content) ? result.content : [];
        const text = content.map((part) => (part && typeof part === 'object' && 'text' in part && typeof part.text === 'string' ? part.text : JSON.stringify(part))).join('\n');
        return result.isError ? { ok: false, text: JSON.stringify({ error: text || 'the tool failed' }) } : { ok: true, text };
      } catch (error) {
        return { ok: false, text: JSON.stringify({ error: `the MCP server did not answer the call: ${(error as Error).message}` }) };
      }
    },
    close: () => client.close(),
  };
}

/** The stored OAuth state a server's `oauth.tokens` names, read from the organization's secrets. */
async function storedOAuthOf(step: BlockStep, name: string, url: string): Promise<StoredOAuth> {
  const found = await step.session.deps.secrets(step.session.run.organizationId, [name]);
  const value = found[name];
  if (value === undefined) throw secretsMissing(`the MCP server ${url}`, [name]);
  const state = parseStoredOAuth(value);
  if ('problem' in state) throw new BlockFailure('HTTP_REQUEST_INVALID', `the MCP server ${url}: the secret '${name}' ${state.problem}`);
  return state;
}
