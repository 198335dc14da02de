import type { ErrorCode } from '../../domain/errors/apiError.ts';
import type { FailureReason } from '../../domain/execution/executionEvents.ts';

/** A block could not produce its output: why (the run's failure reason) and a code for the caller. */
export class BlockFailure extends Error {
  readonly code: ErrorCode;
  readonly reason: FailureReason;

  // Plain fields, no parameter properties: the sandbox worker loads this file with Node's type stripping.
  constructor(code: ErrorCode, message: string, reason: FailureReason = 'error') {
    super(message);
    this.name = 'BlockFailure';
    this.code = code;
    this.reason = reason;
  }
}
