import type { components, paths } from './openapi.ts';

type Schemas = components['schemas'];
type FlowPaths = '/api/v1/seq/{org}/{project}/{flow}/execute';

/** What `execute`, `startJob` and `step` send: a fresh run's input, or a resume's fields. */
export type RunRequest = paths[FlowPaths]['post']['requestBody']['content']['application/json'];
/** A fresh run's input. */
export type RunInput = Pick<RunRequest, 'message' | 'parameters' | 'attachments' | 'tools' | 'toolChoice'>;

export type ExecuteAnswer = Schemas['ExecuteAnswer'];
export type CompletedRun = Extract<ExecuteAnswer, { status: 'completed' }>;
export type ToolCallsRequired = Extract<ExecuteAnswer, { status: 'tool_calls_required' }>;
export type ToolCall = ToolCallsRequired['toolCalls'][number];
export type JobAccepted = Schemas['JobAccepted'];
export type Job = Schemas['Job'];
export type JobPage = Schemas['JobPage'];
export type RunPage = Schemas['RunPage'];
export type Flow = Schemas['Flow'];
export type WebhookPayload = Schemas['WebhookPayload'];

/** Every error code the API answers with (from the document's error statuses). */
export type ErrorCode = {
  [Status in keyof paths[FlowPaths]['post']['responses']]: paths[FlowPaths]['post']['responses'][Status] extends { content: { 'application/json': { detail: { code: infer Code } } } } ? Code : never;
}[keyof paths[FlowPaths]['post']['responses']];

/** The events of a `/step` stream (the `data` of each, by its `event` name). */
export type StepEvent =
  | { event: 'started'; id: string; data: { executionId: string; flowId: string; versionId: string; versionNumber: number; blockCount: number } }
  | { event: 'step_started'; id: string; data: { executionId: string; stepIndex: number; blockId: string; blockName: string; iteration: number | null; processorType: string } }
  | { event: 'step_completed'; id: string; data: { executionId: string; stepIndex: number; blockId: string; blockName: string; iteration: number | null; output: unknown; model: string | null; usage: unknown; durationMs: number } }
  /** `toolCallMessages` is null when the stream is read in another process than the run's (the log keeps only their digest). */
  | { event: 'step_paused_for_tool_calls'; id: string; data: Omit<ToolCallsRequired, 'toolCallMessages'> & { toolCallMessages: unknown[] | null } }
  | { event: 'resumed'; id: string; data: { executionId: string; pausedAtStep: string; iterationsUsed: number } }
  | { event: 'completed'; id: string; data: CompletedRun }
  | { event: 'failed'; id: string; data: { executionId: string; code: ErrorCode | string; message: string; failureReason: string; step_name: string | null } };
