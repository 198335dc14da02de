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

/** The events of a `/step` stream: the SSE `event` name, its `data`, and its `id` (the position to resume after). */
export type StepEvent = Schemas['StepEvent'] & { id: string };
