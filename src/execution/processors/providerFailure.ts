import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { BlockedAddressError } from '../../outbound/addressGuard.ts';
import { ReplyTooLargeError } from '../../outbound/cappedReply.ts';
import { BlockFailure } from './blockFailure.ts';
import type { ProviderAccount } from './llmCall.ts';

/** Both SDKs (each Stainless-made) name their errors alike: one check for either's class of that name. */
type SdkErrorName = 'APIError' | 'APIConnectionError' | 'APIConnectionTimeoutError' | 'AuthenticationError' | 'PermissionDeniedError';
interface SdkError extends Error {
  status: number | undefined;
  error: unknown;
}
const is = (error: unknown, name: SdkErrorName): error is SdkError => error instanceof OpenAI[name] || error instanceof Anthropic[name];

/** What a failed model call means for the block: a failure with the spec's code and a message that says what to fix. */
export function failureOf(error: unknown, account: Pick<ProviderAccount, 'organizationKey'>, sentTools: boolean, timeoutMs: number): BlockFailure {
  if (error instanceof BlockFailure) return error;
  const tooLarge = causeOf(error, ReplyTooLargeError);
  if (tooLarge) return new BlockFailure('PROVIDER_ERROR', `the model provider's reply is larger than ${tooLarge.limitBytes} bytes (SEQFLOW_LLM_MAX_REPLY_BYTES): it was not read`);
  if (sentTools && is(error, 'APIError') && [400, 404, 422, 501].includes(error.status ?? 0) && /tool|function/i.test(error.message)) {
    return new BlockFailure('TOOLS_UNSUPPORTED', `the model or gateway does not support function calling: ${error.message}`);
  }
  if (is(error, 'APIConnectionTimeoutError')) return new BlockFailure('PROVIDER_TIMEOUT', `the model provider did not answer within ${timeoutMs} ms`);
  if (is(error, 'AuthenticationError') || is(error, 'PermissionDeniedError')) {
    return account.organizationKey
      ? new BlockFailure('BYOK_REJECTED', `the model provider rejected the organization's own key (HTTP ${error.status})`, 'byok_rejected')
      : new BlockFailure('PROVIDER_ERROR', `the model provider rejected the service's key (HTTP ${error.status})`);
  }
  if (is(error, 'APIConnectionError')) {
    const blocked = causeOf(error, BlockedAddressError);
    return new BlockFailure(
      'PROVIDER_ERROR',
      blocked
        ? `the model provider's address is not allowed: ${blocked.message} (for a model server on this machine or your network, allow its range with SEQFLOW_OUTBOUND_ALLOW_CIDRS)`
        : `cannot reach the model provider: ${error.message}`,
    );
  }
  if (is(error, 'APIError')) {
    // OpenAI's body is {error: {message}}; Anthropic's {type: 'error', error: {type, message}}: the SDKs keep `error` of each.
    const body = error.error as { message?: string; error?: { message?: string } } | undefined;
    const detail = body?.message ?? body?.error?.message ?? error.message;
    return new BlockFailure('PROVIDER_ERROR', `the model provider answered HTTP ${error.status ?? '?'}: ${detail}`);
  }
  return new BlockFailure('PROVIDER_ERROR', `model call failed: ${(error as Error).message}`);
}

/** The first error of class `kind` in `error`'s chain of causes. */
function causeOf<T extends Error>(error: unknown, kind: abstract new (...args: never[]) => T): T | undefined {
  for (let current = error; current; current = (current as { cause?: unknown }).cause) {
    if (current instanceof kind) return current;
  }
  return undefined;
}
