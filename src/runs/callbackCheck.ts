import { ApiError } from '../domain/errors/apiError.ts';
import { type WebhookEventName, defaultWebhookEvents, webhookEvents } from '../domain/execution/executionEvents.ts';
import { type AddressGuard, BlockedAddressError } from '../outbound/addressGuard.ts';

export interface JobCallback {
  url: string;
  events: WebhookEventName[];
}

/** How callbacks may be reached: over https, or also plain http to the operator's allowed ranges (development). */
export interface CallbackPolicy {
  plainHttpInAllowedRanges: boolean;
}

const HTTP_HINT = 'for a receiver on this machine or your network during development, set SEQFLOW_DEV_HTTP_CALLBACKS=true and allow its range in SEQFLOW_OUTBOUND_ALLOW_CIDRS';

/**
 * callbackUrl: HTTPS without credentials, resolving to public addresses only (through the outbound
 * guard), or plain http when the policy allows it and every address is in the operator's allowed
 * ranges; callbackEvents: a non-empty subset.
 */
export async function checkCallback(guard: Pick<AddressGuard, 'check' | 'inAllowedRanges'>, policy: CallbackPolicy, input: { callbackUrl?: unknown; callbackEvents?: unknown }): Promise<JobCallback | null> {
  if (input.callbackUrl === undefined) {
    if (input.callbackEvents !== undefined) throw new ApiError('CALLBACK_EVENTS_INVALID', 'callbackEvents needs a callbackUrl');
    return null;
  }
  const url = input.callbackUrl;
  if (typeof url !== 'string' || url.length > 2048 || !URL.canParse(url) || !['https:', 'http:'].includes(new URL(url).protocol)) {
    throw new ApiError('CALLBACK_URL_INVALID', 'callbackUrl must be an https URL of at most 2048 characters');
  }
  if (new URL(url).protocol === 'http:') {
    if (!policy.plainHttpInAllowedRanges) throw new ApiError('CALLBACK_URL_INVALID', `callbackUrl must be an https URL (${HTTP_HINT})`);
    if (!(await guard.inAllowedRanges(url))) throw new ApiError('CALLBACK_URL_INVALID', 'callbackUrl may use plain http only for hosts whose addresses are all in SEQFLOW_OUTBOUND_ALLOW_CIDRS: use https');
  }
  // Credentials in the URL could never be sent safely (and would be echoed in logs and audits); deliveries are signed instead.
  const { username, password } = new URL(url);
  if (username || password) throw new ApiError('CALLBACK_URL_INVALID', 'callbackUrl must not carry credentials (user:password@): verify the X-Service-Signature of each delivery instead');
  try {
    await guard.check(url);
  } catch (error) {
    if (error instanceof BlockedAddressError) throw new ApiError('CALLBACK_URL_INVALID', `callbackUrl: host not allowed (${error.message})`);
    throw error;
  }
  const events = input.callbackEvents ?? [...defaultWebhookEvents];
  if (!Array.isArray(events) || events.length === 0 || events.some((e) => !(webhookEvents as readonly unknown[]).includes(e)) || new Set(events).size !== events.length) {
    throw new ApiError('CALLBACK_EVENTS_INVALID', `callbackEvents must be a non-empty subset of ${webhookEvents.join(', ')}`);
  }
  return { url, events: events as WebhookEventName[] };
}
