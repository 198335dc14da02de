import { retryAfterMs } from '../../domain/models/modelCallRetry.ts';
import { BlockedAddressError } from '../../outbound/addressGuard.ts';
import { ReplyTooLargeError } from '../../outbound/cappedReply.ts';
import { BlockFailure } from './blockFailure.ts';
import type { ProviderAccount } from '../providers/providerAccount.ts';

/**
 * The providers' SDKs (OpenAI's and Anthropic's, both made with Stainless) throw errors of the same
 * class names; a check by name up the error's class chain covers both without loading either SDK
 * here (Anthropic's is loaded only when a model routed to it is first called). Google's SDK throws
 * `ApiError` with the status and the body as JSON text for an HTTP error, and fetch's own errors
 * otherwise (an abort at its timeout, `fetch failed` with the cause).
 */
type SdkErrorName = 'APIError' | 'APIConnectionError' | 'APIConnectionTimeoutError' | 'AuthenticationError' | 'PermissionDeniedError' | 'ApiError';
interface SdkError extends Error {
  status: number | undefined;
  error: unknown;
  headers?: { get(name: string): string | null };
}
const is = (error: unknown, name: SdkErrorName): error is SdkError => {
  for (let proto = error instanceof Error ? Object.getPrototypeOf(error) : null; proto && proto !== Error.prototype; proto = Object.getPrototypeOf(proto)) {
    if ((proto as { constructor: { name: string } }).constructor.name === name) return true;
  }
  return false;
};

/**
 * The provider is down for now, not the request wrong: a timeout, no connection, a 5xx, or a 429
 * the SDK's retries did not outlast. A block with fallback models tries the next on these only.
 */
export const providerDown = (failure: BlockFailure) => (failure as { providerDown?: boolean }).providerDown === true;
/** How long the provider asked to be left alone before the next call, if it said. */
export const retryAfterOf = (failure: BlockFailure) => (failure as { retryAfterMs?: number }).retryAfterMs;
const down = (failure: BlockFailure, retryAfter?: number) => Object.assign(failure, { providerDown: true }, retryAfter === undefined ? {} : { retryAfterMs: retryAfter });

/**
 * How servers say they take no tools at all. Narrow on purpose: any message naming a tool is not
 * one (Anthropic's "`tool_use` ids were found without `tool_result` blocks" is a request error).
 */
const TOOLS_REFUSED = /(does not|doesn't|do not) support (tools|tool use|tool calling|function calling|functions)|(tools|tool use|tool calling|function calling|functions) (is|are) not supported|unrecognized request argument supplied: (tools|tool_choice)/i;

/** What a failed model call means for the block: a failure with the spec's code and a message that says what to fix. */
export function failureOf(error: unknown, account: Pick<ProviderAccount, 'organizationKey'>, sentTools: boolean, timeoutMs: number): BlockFailure {
  if (error instanceof BlockFailure) return error;
  if (is(error, 'ApiError')) return googleFailure(error, account, sentTools);
  if (error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError')) return down(new BlockFailure('PROVIDER_TIMEOUT', `the model provider did not answer within ${timeoutMs} ms`));
  if ((error instanceof TypeError && error.message === 'fetch failed') || (error instanceof Error && causeOf(error, BlockedAddressError))) return unreachable(error as Error);
  const tooLarge = causeOf(error, ReplyTooLargeError);
  if (tooLarge) return new BlockFailure('PROVIDER_ERROR', `the model provider's reply is larger than ${tooLarge.limitBytes} bytes (SEQFLOW_LLM_MAX_REPLY_BYTES): it was not read`);
  if (sentTools && is(error, 'APIError') && [400, 404, 422, 501].includes(error.status ?? 0) && TOOLS_REFUSED.test(error.message)) {
    return new BlockFailure('TOOLS_UNSUPPORTED', 'the model or gateway does not support function calling', { detail: error.message });
  }
  if (is(error, 'APIConnectionTimeoutError')) return down(new BlockFailure('PROVIDER_TIMEOUT', `the model provider did not answer within ${timeoutMs} ms`));
  if (is(error, 'AuthenticationError') || is(error, 'PermissionDeniedError')) {
    return account.organizationKey
      ? new BlockFailure('BYOK_REJECTED', `the model provider rejected the organization's own key (HTTP ${error.status})`, { reason: 'byok_rejected' })
      : new BlockFailure('PROVIDER_ERROR', `the model provider rejected the service's key (HTTP ${error.status})`);
  }
  if (is(error, 'APIConnectionError')) return unreachable(error);
  if (is(error, 'APIError')) {
    // OpenAI's body is {error: {message}}; Anthropic's {type: 'error', error: {type, message}}: the SDKs keep `error` of each.
    const body = error.error as { message?: string; error?: { message?: string } } | undefined;
    const detail = body?.message ?? body?.error?.message ?? error.message;
    const failure = new BlockFailure('PROVIDER_ERROR', `the model provider answered HTTP ${error.status ?? '?'}`, { detail });
    return error.status !== undefined && (error.status >= 500 || error.status === 429) ? down(failure, retryAfterMs(error.headers, undefined, Date.now())) : failure;
  }
  // A JavaScript error thrown while reading the answer (a field missing, a body that is not JSON) is
  // the service's own text about its code: the caller is told what happened, not that text.
  if (error instanceof TypeError || error instanceof SyntaxError || error instanceof RangeError || error instanceof ReferenceError) return new BlockFailure('PROVIDER_ERROR', "the model provider's answer could not be read (not the shape its API documents)");
  return new BlockFailure('PROVIDER_ERROR', 'model call failed', { detail: (error as Error).message });
}

function unreachable(error: Error): BlockFailure {
  const blocked = causeOf(error, BlockedAddressError);
  if (blocked) return new BlockFailure('PROVIDER_ERROR', "the model provider's address is not allowed (for a model server on this machine or your network, allow its range with SEQFLOW_OUTBOUND_ALLOW_CIDRS)", { detail: blocked.message });
  const cause = (error as { cause?: unknown }).cause;
  return down(new BlockFailure('PROVIDER_ERROR', 'cannot reach the model provider', { detail: `${error.message}${cause instanceof Error && !(cause instanceof ReplyTooLargeError) ? ` (${cause.message})` : ''}` }));
}

/** Google's HTTP errors: `{error: {code, message, status}}` as the error's message. */
function googleFailure(error: SdkError, account: Pick<ProviderAccount, 'organizationKey'>, sentTools: boolean): BlockFailure {
  let detail = error.message;
  let body: unknown;
  try {
    body = JSON.parse(error.message);
    detail = (body as { error?: { message?: string } }).error?.message ?? detail;
  } catch {
    // Not JSON: the message as it is.
  }
  const status = error.status ?? 0;
  if (sentTools && [400, 404, 501].includes(status) && TOOLS_REFUSED.test(detail)) return new BlockFailure('TOOLS_UNSUPPORTED', 'the model does not support function calling', { detail });
  // An invalid key is a 400 (API_KEY_INVALID) at Google, a missing or unauthorised one 401 or 403.
  if (status === 401 || status === 403 || /API_KEY_INVALID|API key not valid/.test(error.message)) {
    return account.organizationKey
      ? new BlockFailure('BYOK_REJECTED', `the model provider rejected the organization's own key (HTTP ${status})`, { reason: 'byok_rejected' })
      : new BlockFailure('PROVIDER_ERROR', `the model provider rejected the service's key (HTTP ${status})`);
  }
  const failure = new BlockFailure('PROVIDER_ERROR', `the model provider answered HTTP ${status}`, { detail });
  return status >= 500 || status === 429 ? down(failure, retryAfterMs(undefined, body, Date.now())) : failure;
}

/** The first error of class `kind` in `error`'s chain of causes. */
function causeOf<T extends Error>(error: unknown, kind: abstract new (...args: never[]) => T): T | undefined {
  for (let current = error; current; current = (current as { cause?: unknown }).cause) {
    if (current instanceof kind) return current;
  }
  return undefined;
}
