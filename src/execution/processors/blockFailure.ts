import type { ErrorCode } from '../../domain/errors/apiError.ts';
import type { FailureReason } from '../../domain/execution/executionEvents.ts';

/**
 * A block could not produce its output: why (the run's failure reason), a code for the caller, the
 * service's own words (`message`, which never quotes what came from outside), and what came from
 * outside (`detail`: a thrown message, a provider's error body), sealed with the run's data when
 * recorded (src/domain/execution/failureMessage.ts).
 */
export class BlockFailure extends Error {
  readonly code: ErrorCode;
  readonly reason: FailureReason;
  readonly detail: string | null;

  // Plain fields, no parameter properties: the sandbox worker loads this file with Node's type stripping.
  constructor(code: ErrorCode, message: string, options: { reason?: FailureReason; detail?: string | null } = {}) {
    super(message);
    this.name = 'BlockFailure';
    this.code = code;
    this.reason = options.reason ?? 'error';
    this.detail = options.detail ?? null;
  }
}
