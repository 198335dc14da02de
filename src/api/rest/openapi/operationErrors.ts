import type { ErrorCode } from '../../../domain/errors/apiError.ts';

/**
 * The error codes each kind of operation can answer, by what it does: the document lists, per
 * operation, only the statuses (and codes) these give, not every status of the API.
 */

/** Any request at all: the URL, headers and time limits, and the service's own trouble. */
export const ANY_REQUEST: readonly ErrorCode[] = ['URL_INVALID', 'URL_TOO_LONG', 'HEADERS_TOO_LARGE', 'REQUEST_TIMEOUT', 'INTERNAL', 'DATABASE_UNAVAILABLE', 'DATABASE_STORAGE_FULL'];
/** A request with a JSON body. */
export const WITH_BODY: readonly ErrorCode[] = ['INVALID_JSON', 'INVALID_TEXT', 'NESTING_TOO_DEEP', 'UNSUPPORTED_MEDIA_TYPE', 'PAYLOAD_TOO_LARGE'];
/** Authentication by each scheme. */
export const AUTHENTICATION: Record<'apiKey' | 'operatorToken', readonly ErrorCode[]> = {
  apiKey: ['UNAUTHENTICATED', 'API_KEY_REVOKED', 'RATE_LIMITED'],
  operatorToken: ['UNAUTHENTICATED', 'FORBIDDEN'],
};

/** Finding the flow of `/seq/{org}/{project}/{flow}` within the key's project. */
export const FLOW_LOOKUP: readonly ErrorCode[] = ['FLOW_NOT_FOUND'];
/** Finding a run of that flow by its id. */
export const RUN_LOOKUP: readonly ErrorCode[] = [...FLOW_LOOKUP, 'EXECUTION_ID_INVALID', 'EXECUTION_NOT_FOUND'];
/** A listing's query (filters, limit, cursor). */
export const LISTING: readonly ErrorCode[] = ['VALIDATION_FAILED'];
/** An `Idempotency-Key`. */
export const IDEMPOTENCY: readonly ErrorCode[] = ['IDEMPOTENCY_KEY_INVALID', 'IDEMPOTENCY_KEY_IN_USE', 'IDEMPOTENCY_KEY_REUSED'];

/** Checking a run's input before its first event. */
const RUN_INPUT: readonly ErrorCode[] = [
  'REQUEST_INVALID',
  'VALIDATION_FAILED',
  'PARAMETER_NAME_RESERVED',
  'ATTACHMENT_LIMIT_EXCEEDED',
  'ATTACHMENT_INVALID_SCHEME',
  'ATTACHMENT_URL_TOO_LONG',
  'ATTACHMENT_UNSUPPORTED_MIME',
  'ATTACHMENT_INVALID_FILENAME',
  'ATTACHMENT_BLOCKED_HOST',
  'MODEL_MIME_INCOMPATIBLE',
  'NO_PRODUCTION_VERSION',
  'CREDITS_EXHAUSTED',
];
/** A run the caller waits for: how its blocks can fail, or the service stop under it. */
const RUNNING: readonly ErrorCode[] = [
  'TOOLS_NOT_ENABLED',
  'TOOLS_INVALID',
  'TOOL_NAME_INVALID',
  'TOOLS_IN_NON_SEQUENTIAL_STEP',
  'TOOLS_UNSUPPORTED',
  'TOOL_ITERATION_LIMIT',
  'MESSAGES_TOO_LARGE',
  'LOOP_INPUT_INVALID',
  'LOOP_LIMIT_EXCEEDED',
  'RUN_IF_FAILED',
  'CODE_BLOCK_FAILED',
  'CODE_OUTPUT_TOO_LARGE',
  'HTTP_REQUEST_INVALID',
  'HTTP_BLOCKED_HOST',
  'HTTP_SECRET_MISSING',
  'MCP_SERVER_FAILED',
  'SUBFLOW_NOT_FOUND',
  'SUBFLOW_DEPTH_EXCEEDED',
  'SUBFLOW_UNSUPPORTED',
  'HTTP_REQUEST_FAILED',
  'HTTP_STATUS_UNEXPECTED',
  'HTTP_RESPONSE_TOO_LARGE',
  'HTTP_RESPONSE_INVALID',
  'CODE_SANDBOX_BUSY',
  'BYOK_REJECTED',
  'MODEL_OUTPUT_INVALID',
  'PROVIDER_ERROR',
  'PROVIDER_NOT_CONFIGURED',
  'PROVIDER_TIMEOUT',
  'RUN_INTERRUPTED',
  'RUN_RECORD_FAILED',
];
/** Resuming a tool pause (CONFLICT: the run was resumed or ended meanwhile). */
const RESUME: readonly ErrorCode[] = ['EXECUTION_ID_INVALID', 'EXECUTION_NOT_FOUND', 'PAUSED_STEP_INVALID', 'TOOL_RESULTS_MISMATCH', 'TOOL_HISTORY_TAMPERED', 'INVALID_RESUME', 'CONFLICT'];
/** Cancelling a job (CONFLICT: it has ended). */
export const JOB_CANCELLED: readonly ErrorCode[] = [...RUN_LOOKUP, 'VALIDATION_FAILED', 'CONFLICT'];
/** Erasing a run's data: a run of the flow that has ended. */
export const RUN_ERASED: readonly ErrorCode[] = [...RUN_LOOKUP, 'VALIDATION_FAILED', 'CONFLICT'];

/** `/execute` and `/step`: a run started (or resumed) and followed. */
export const RUN_STARTED: readonly ErrorCode[] = [...FLOW_LOOKUP, ...RUN_INPUT, ...RUNNING, ...RESUME];
/** `/jobs`: a run accepted to be done in the background. */
export const JOB_ACCEPTED: readonly ErrorCode[] = [...FLOW_LOOKUP, ...RUN_INPUT, 'CALLBACK_URL_INVALID', 'CALLBACK_EVENTS_INVALID', 'TOOLS_REQUIRE_SYNC_EXECUTE', 'INVALID_RESUME'];
/** Webhook management of an organization. */
/** A decision of an approval (an addition to the spec). */
export const APPROVAL_DECIDED: readonly ErrorCode[] = [...FLOW_LOOKUP, 'EXECUTION_NOT_FOUND', 'VALIDATION_FAILED', 'FORBIDDEN', 'ORGANIZATION_NOT_FOUND', 'APPROVAL_NOT_WAITING', 'APPROVAL_ALREADY_DECIDED'];

export const ORGANIZATION_LOOKUP: readonly ErrorCode[] = ['ORGANIZATION_NOT_FOUND'];
