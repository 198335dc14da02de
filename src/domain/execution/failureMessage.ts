import { cutAtCodePoint, storableText } from '../text/storableText.ts';

/** A run's failure message is for people: this many characters, then a marker naming the full length. */
export const FAILURE_MESSAGE_MAX = 4000;

/**
 * Caps a failure message before it is recorded, through the storable-text boundary: a code block
 * can throw a string of megabytes, or one holding a NUL or half an emoji, and the message travels in
 * the run's event, its answer, its trace and its `flow.failed` webhook.
 */
export function capFailureMessage(message: string): string {
  const clean = storableText(message);
  return clean.length > FAILURE_MESSAGE_MAX ? `${cutAtCodePoint(clean, FAILURE_MESSAGE_MAX)}… [truncated: ${clean.length} characters]` : clean;
}
