/** The spec's tool-pause response body, without its status field: what a paused run hands its caller. */
export interface PauseData {
  executionId: string;
  pausedAtStep: string;
  iterationsUsed: number;
  toolCallMessages: unknown[];
  toolCalls: { id: string; function: { name: string; arguments: string } }[];
  accumulatedOutputs: Record<string, unknown>;
}

/** Ends the run's steps for now: a tools-enabled block waits for the caller's tool results. */
export class PausedForTools extends Error {
  readonly pause: PauseData;

  constructor(pause: PauseData) {
    super('paused for tool calls');
    this.pause = pause;
  }
}
