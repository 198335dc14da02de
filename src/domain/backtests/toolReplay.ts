import type { RecordedToolResult, RequestedToolCall } from '../execution/executionEvents.ts';

/** A tool call the original run's model asked for, with the result its caller sent. */
export interface RecordedCall {
  name: string;
  arguments: string;
  content: string;
}

/**
 * The recorded run's tool calls with their results, in the order they were answered: each pause's
 * calls joined by id with the results of the resume that answered it. A resume recorded before the
 * results were kept (ExecutionResumed v1) makes the run not replayable: null.
 */
export function recordedCalls(rounds: readonly { toolCalls: readonly RequestedToolCall[]; toolResults: readonly RecordedToolResult[] | null }[]): RecordedCall[] | null {
  const calls: RecordedCall[] = [];
  for (const round of rounds) {
    if (round.toolResults === null) return null;
    for (const call of round.toolCalls) {
      const answer = round.toolResults.find((r) => r.toolCallId === call.id);
      if (answer) calls.push({ name: call.name, arguments: call.arguments, content: answer.content });
    }
  }
  return calls;
}

/**
 * Answers a replay's tool calls from the recorded ones, as its caller did: for each call, the first
 * unused recorded call of the same tool with the same arguments, else the first unused one of the
 * same tool, else the last one of that tool again. A tool the original never called cannot be
 * answered: its name is returned in `unanswered`, and the replay stops there.
 */
export function answerFromRecorded(recorded: readonly RecordedCall[], used: Set<number>, calls: readonly { id: string; name: string; arguments: string }[]): { answers: { toolCallId: string; content: string }[]; unanswered: string[] } {
  const answers: { toolCallId: string; content: string }[] = [];
  const unanswered: string[] = [];
  for (const call of calls) {
    const unusedIndex = (match: (r: RecordedCall) => boolean) => recorded.findIndex((r, i) => !used.has(i) && r.name === call.name && match(r));
    let index = unusedIndex((r) => r.arguments === call.arguments);
    if (index < 0) index = unusedIndex(() => true);
    if (index < 0) index = recorded.findLastIndex((r) => r.name === call.name);
    if (index < 0) {
      unanswered.push(call.name);
      continue;
    }
    used.add(index);
    answers.push({ toolCallId: call.id, content: recorded[index]!.content });
  }
  return { answers, unanswered };
}
