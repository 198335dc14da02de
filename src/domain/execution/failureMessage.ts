/** A run's failure message is for people: this many characters, then a marker naming the full length. */
export const FAILURE_MESSAGE_MAX = 4000;

/**
 * Caps a failure message before it is recorded: a code block can throw a string of megabytes, and
 * the message travels in the run's event, its answer, its trace and its `flow.failed` webhook.
 */
export function capFailureMessage(message: string): string {
  return message.length > FAILURE_MESSAGE_MAX ? `${message.slice(0, FAILURE_MESSAGE_MAX)}… [truncated: ${message.length} characters]` : message;
}
