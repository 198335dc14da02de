import type { ParentLink } from '../domain/blocks/flow/subflowLink.ts';
import type { Principal } from '../domain/events/eventMetadata.ts';
import type { Attachment } from '../domain/execution/attachment.ts';
import type { RunMode, WebhookEventName } from '../domain/execution/executionEvents.ts';
import type { StoredStep } from '../domain/flows/flowDefinition.ts';
import type { Tool, ToolChoice } from '../domain/tools/toolDefinition.ts';

/** The tools a caller declared with a run (the spec's `tools` and `tool_choice`). */
export interface ToolRequest {
  tools: Tool[];
  toolChoice: ToolChoice;
}

/** A run as the engine is asked to start it: which version, its input, who started it and how (flowEngine.ts). */
export interface ExecutionRequest {
  executionId: string;
  flowId: string;
  versionId: string;
  versionNumber: number;
  organizationId: string;
  projectId: string;
  steps: StoredStep[];
  message: string | null;
  parameters: Record<string, unknown>;
  attachments: Attachment[];
  tools: ToolRequest | undefined;
  mode: RunMode;
  apiKeyId: string | null;
  principal: Principal;
  /** The API request that started the run (X-Request-Id): on every event of the run, a worker's too. */
  requestId?: string;
  /** The trace of the request that started the run (W3C traceparent): the run's spans continue it, a worker's too. */
  traceparent?: string;
  /** /jobs only: where and for which terminal events to send webhooks. */
  callback?: { url: string; events: WebhookEventName[] } | null;
  /** Test runs only: the test run this run belongs to. */
  testRunId?: string | null;
  /** Reruns only: the run this one repeats. */
  rerunOf?: string | null;
  /** Backtest runs only: the backtest this run belongs to. */
  backtestId?: string | null;
  /** Scheduled jobs only: the schedule and the firing that started it. */
  schedule?: { scheduleId: string; scheduledFor: string } | null;
  /** Child runs only (mode `subflow`): the run and block that started it. */
  parent?: ParentLink | null;
}
