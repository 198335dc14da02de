import type { Context } from '@opentelemetry/api';
import type { Attachment } from '../domain/execution/attachment.ts';
import type { RunMode } from '../domain/execution/executionEvents.ts';
import type { ApprovalRecord, RunHistory } from '../domain/execution/runHistory.ts';
import type { ParentLink } from '../domain/blocks/flow/subflowLink.ts';

type SubflowStartedData = RunHistory['subflows'][string];
import type { StoredStep } from '../domain/flows/flowDefinition.ts';
import type { EngineDependencies, ToolRequest } from './engineDependencies.ts';
import type { ExecutionRecorder } from './executionRecorder.ts';
import type { ProviderName } from '../domain/models/modelRoute.ts';
import type { ProviderAccount } from './providers/providerAccount.ts';

/** One run as its steps see it: its input, its recorder, and what it has produced so far. */
export interface RunContext {
  executionId: string;
  organizationId: string;
  projectId: string;
  mode: RunMode;
  flowId: string;
  steps: StoredStep[];
  message: string | null;
  parameters: Record<string, unknown>;
  attachments: Attachment[];
  tools: ToolRequest | undefined;
  recorder: ExecutionRecorder;
  /** Outputs of completed blocks by name (for pause responses). */
  accumulated: Record<string, unknown>;
  /** Blocks a taken-over run already completed, by `stepIndex|blockName|iteration`: not run (or paid for) again. */
  completed?: Map<string, unknown>;
  /** The run's approvals by block name, from its events: a decided one's decision is its block's output (approvalRunner.ts). */
  approvals?: Readonly<Record<string, ApprovalRecord>>;
  /** A child run's link to its parent (its depth among them); null or absent for a run a caller started. */
  parent?: ParentLink | null;
  /** The child runs its flow blocks started, from its events, by `subflowKey`: a taken-over run continues them rather than starting others. */
  subflows?: Readonly<Record<string, SubflowStartedData>>;
  /** The run's trace (W3C traceparent of the span it continues) and, for a resume, the resuming request's, linked. */
  trace: { parent?: string; link?: string };
  /** When a fresh run was taken up (`performance.now()`), before its first append: its duration counts from there, as its events' times do. */
  startedAt?: number;
}

/** The state one call of the step runner shares with the blocks it runs. */
export interface RunSession {
  deps: EngineDependencies;
  run: RunContext;
  /** Tokens spent in this call so far: the projected balance has not seen them yet. */
  spent: number;
  /** The organization's provider account, looked up once per call. */
  /** The run's provider accounts, each read once per run. */
  providers?: Map<ProviderName, Promise<ProviderAccount | undefined>>;
  /** The run's span: the parent of its steps' spans. */
  span: Context;
}

/** Identifies one block execution within a run. */
export const blockKey = (stepIndex: number, blockName: string, iteration: number | null) => `${stepIndex}|${blockName}|${iteration ?? ''}`;
