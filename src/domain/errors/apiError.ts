/**
 * Every error a caller can cause is a value with a code. The HTTP status is chosen in one place
 * (src/api/rest/errorStatus.ts); the CLI prints the code and message.
 */
export type ErrorCode =
  | 'VALIDATION_FAILED'
  | 'FLOW_FILE_INVALID'
  | 'FLOW_INVALID'
  | 'SLUG_INVALID'
  | 'SLUG_TAKEN'
  | 'ORGANIZATION_NOT_FOUND'
  | 'PROJECT_NOT_FOUND'
  | 'FLOW_NOT_FOUND'
  | 'VERSION_NOT_FOUND'
  | 'API_KEY_NOT_FOUND'
  | 'API_KEY_REVOKED'
  | 'MEMBER_ROLE_INVALID'
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'ROUTE_NOT_FOUND'
  | 'INVALID_JSON'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'PAYLOAD_TOO_LARGE'
  | 'CONFLICT'
  | 'PROJECTION_TIMEOUT'
  | 'REQUEST_INVALID'
  | 'PARAMETER_NAME_RESERVED'
  | 'ATTACHMENT_LIMIT_EXCEEDED'
  | 'ATTACHMENT_INVALID_SCHEME'
  | 'ATTACHMENT_URL_TOO_LONG'
  | 'ATTACHMENT_UNSUPPORTED_MIME'
  | 'ATTACHMENT_INVALID_FILENAME'
  | 'ATTACHMENT_BLOCKED_HOST'
  | 'MODEL_MIME_INCOMPATIBLE'
  | 'NO_PRODUCTION_VERSION'
  | 'TOOLS_NOT_ENABLED'
  | 'EXECUTION_ID_INVALID'
  | 'EXECUTION_NOT_FOUND'
  | 'CALLBACK_URL_INVALID'
  | 'NOT_FOUND'
  | 'CALLBACK_EVENTS_INVALID'
  | 'TOOLS_INVALID'
  | 'TOOL_NAME_INVALID'
  | 'TOOL_RESULTS_MISMATCH'
  | 'TOOL_HISTORY_TAMPERED'
  | 'PAUSED_STEP_INVALID'
  | 'INVALID_RESUME'
  | 'TOOLS_REQUIRE_SYNC_EXECUTE'
  | 'TOOL_ITERATION_LIMIT'
  | 'MESSAGES_TOO_LARGE'
  | 'TOOLS_IN_NON_SEQUENTIAL_STEP'
  | 'TOOLS_UNSUPPORTED'
  | 'CREDITS_EXHAUSTED'
  | 'BYOK_REJECTED'
  | 'LOOP_INPUT_INVALID'
  | 'LOOP_LIMIT_EXCEEDED'
  | 'CODE_BLOCK_FAILED'
  | 'CODE_OUTPUT_TOO_LARGE'
  | 'CODE_SANDBOX_BUSY'
  | 'MODEL_OUTPUT_INVALID'
  | 'PROVIDER_ERROR'
  | 'PROVIDER_TIMEOUT'
  | 'PROVIDER_NOT_CONFIGURED'
  | 'INTERNAL';

export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Extra fields placed next to code and message in `{detail: {...}}`. */
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}
