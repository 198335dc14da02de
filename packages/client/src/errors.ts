import type { ErrorCode } from './types.ts';

/**
 * An error answer of the API (`{detail: {code, message, requestId, ...}}`), or a failed run:
 * `code` names what went wrong (FLOW_NOT_FOUND, RATE_LIMITED, PROVIDER_ERROR...), `requestId` is
 * the id to quote to support, `detail` holds the fields some codes add (`executionId`, `problems`).
 */
export class SeqflowError extends Error {
  override readonly name = 'SeqflowError';
  readonly status: number;
  readonly code: ErrorCode;
  readonly requestId: string | undefined;
  readonly detail: Readonly<Record<string, unknown>>;
  /** Seconds to wait before retrying, from `Retry-After` (429 RATE_LIMITED). */
  readonly retryAfterSeconds?: number;

  constructor(status: number, code: ErrorCode, message: string, requestId: string | undefined, detail: Readonly<Record<string, unknown>>, retryAfterSeconds?: number) {
    super(message);
    this.status = status;
    this.code = code;
    this.requestId = requestId;
    this.detail = detail;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** Whether `error` is a SeqflowError, with one of `codes` when given: `if (isSeqflowError(e, 'FLOW_NOT_FOUND')) ...`. */
export function isSeqflowError(error: unknown, ...codes: ErrorCode[]): error is SeqflowError {
  return error instanceof SeqflowError && (codes.length === 0 || codes.includes(error.code));
}

/** The error an answer that is not 2xx stands for. */
export async function errorOf(response: Response): Promise<SeqflowError> {
  const text = await response.text();
  let detail: Record<string, unknown> = {};
  try {
    const body = JSON.parse(text) as { detail?: Record<string, unknown> };
    if (body && typeof body.detail === 'object' && body.detail !== null) detail = body.detail;
  } catch {
    // not JSON: a proxy's page, say; the status speaks
  }
  const retryAfter = Number(response.headers.get('retry-after'));
  return new SeqflowError(
    response.status,
    (typeof detail.code === 'string' ? detail.code : 'INTERNAL') as ErrorCode,
    typeof detail.message === 'string' ? detail.message : `HTTP ${response.status}: ${text.slice(0, 200)}`,
    typeof detail.requestId === 'string' ? detail.requestId : (response.headers.get('x-request-id') ?? undefined),
    detail,
    Number.isFinite(retryAfter) && response.headers.has('retry-after') ? retryAfter : undefined,
  );
}
