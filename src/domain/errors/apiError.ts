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

export const isApiError = (error: unknown): error is ApiError => error instanceof ApiError;
