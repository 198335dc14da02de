import { cutAtCodePoint, storableText } from '../text/storableText.ts';

/** A run's failure message (and its detail) is for people: this many characters, then a marker naming the full length. */
export const FAILURE_MESSAGE_MAX = 4000;

/**
 * Caps a failure's message or detail before it is recorded, through the storable-text boundary: a
 * code block can throw a string of megabytes, or one holding a NUL or half an emoji, and the text
 * travels in the run's event, its answer, its trace and its `flow.failed` webhook.
 */
export function capFailureMessage(message: string): string {
  const clean = storableText(message);
  return clean.length > FAILURE_MESSAGE_MAX ? `${cutAtCodePoint(clean, FAILURE_MESSAGE_MAX)}… [truncated: ${clean.length} characters]` : clean;
}

export const capFailureDetail = (detail: string | null | undefined): string | null => (detail === null || detail === undefined || detail === '' ? null : capFailureMessage(detail));

/**
 * A failure as people read it: the service's own words (`message`: the same for every run that
 * fails the same way, never quoting what came from outside), then, while the run's data is kept,
 * what came from outside (`detail`: a thrown message, a provider's error body, an operator's reason),
 * which the log keeps sealed under the run's key (ExecutionFailed, ExecutionStepFailed).
 */
export const failureText = (failure: { message: string; detail?: string | null }): string => (failure.detail ? `${failure.message}: ${failure.detail}` : failure.message);
