import type { ProcessorType } from '../domain/blocks/blockKinds.ts';
import type { StepKind } from '../domain/flows/flowDefinition.ts';
import type { ColumnType, Generated } from 'kysely';
import type { JobStatus, RunStatus } from '../domain/execution/runStatus.ts';
import type { RunMode } from '../domain/execution/executionEvents.ts';

/** Kysely's view of the read models. Every row is derived from events and can be rebuilt. */
type Json = ColumnType<unknown, string, string>;
type Timestamp = ColumnType<Date, string, string>;

export interface OrganizationsTable {
  id: string;
  slug: string;
  name: string;
  created_at: Timestamp;
}

export interface MembersTable {
  organization_id: string;
  user_subject: string;
  role: 'owner' | 'admin' | 'member';
  added_at: Timestamp;
  updated_at: Timestamp;
}

export interface ProjectsTable {
  id: string;
  organization_id: string;
  slug: string;
  name: string;
  created_at: Timestamp;
}

export interface ApiKeysTable {
  key_id: string;
  project_id: string;
  organization_id: string;
  environment: 'live' | 'test';
  key_prefix: string;
  secret_hash: string;
  created_at: Timestamp;
  revoked_at: Timestamp | null;
}

export interface FlowsTable {
  id: string;
  project_id: string;
  organization_id: string;
  slug: string;
  name: string;
  draft: Json;
  block_count: number;
  production_version_id: string | null;
  production_version_number: number | null;
  production_set_at: Timestamp | null;
  /** Some run of the flow carried attachments (images). */
  receives_images: Generated<boolean>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface FlowBlocksTable {
  flow_id: string;
  block_id: string;
  name: string;
  step_index: number;
  index_in_step: number;
  step_kind: StepKind;
  loop_over: string | null;
  processor_type: ProcessorType;
  prompt: string | null;
  model: string | null;
  output_schema: Json | null;
  code: string | null;
  processor_config: Json;
}

export interface FlowVersionsTable {
  id: string;
  flow_id: string;
  number: number;
  note: string | null;
  name: string;
  steps: Json;
  block_count: number;
  published_at: Timestamp;
}

export interface CreditLedgerTable {
  event_id: string;
  organization_id: string;
  delta: ColumnType<number, number, number>;
  execution_id: string | null;
  occurred_at: Timestamp;
  /** A charge's model, block and cost in US dollars (null: a grant, no known price, or projected before they were kept). */
  model: Generated<string | null>;
  block_name: Generated<string | null>;
  cost_usd: Generated<number | null>;
}

export interface CreditBalancesTable {
  organization_id: string;
  balance: ColumnType<number, number, number>;
}

export interface JobsTable {
  execution_id: string;
  flow_id: string;
  project_id: string;
  organization_id: string;
  status: JobStatus;
  result: Json | null;
  failure_reason: string | null;
  error_code: string | null;
  error_message: string | null;
  /** What came from outside the service (ExecutionFailed's sealed `detail`); null once the run's data is erased. */
  error_detail: ColumnType<string | null, string | null | undefined, string | null>;
  claims: Generated<number>;
  created_at: Timestamp;
  started_at: Timestamp | null;
  completed_at: Timestamp | null;
  duration_ms: number | null;
  /** When the run's data was erased (RunDataErased): `result` is null from then on. */
  data_erased_at: ColumnType<Date | null, string | null | undefined, string | null>;
  /** What the run waits for (an approval), or null: a job that waits is not claimed. */
  waiting_for: ColumnType<Json | null, string | null | undefined, string | null>;
}

/** An approval block's wait in a run (0028): its deadline on the database's clock, and how it was decided. */
export interface ApprovalsTable {
  execution_id: string;
  block_name: string;
  step_index: number;
  organization_id: string;
  project_id: string;
  flow_id: string;
  approvers: Json;
  on_timeout: string;
  /** `run_ended`: the run ended (cancelled) while it waited. */
  status: 'waiting' | 'approved' | 'rejected' | 'timed_out' | 'run_ended';
  requested_at: Timestamp;
  due_at: Timestamp;
  decided_at: Timestamp | null;
  /** A member's subject, or `timeout`. */
  decided_by: string | null;
}

export interface RunsTable {
  execution_id: string;
  organization_id: string;
  project_id: string;
  flow_id: string;
  version_number: number;
  mode: RunMode;
  api_key_id: string | null;
  test_run_id: string | null;
  rerun_of: string | null;
  /** The backtest a run of mode `backtest` belongs to. */
  backtest_id: Generated<string | null>;
  status: RunStatus;
  claims: Generated<number>;
  failure_code: string | null;
  created_at: Timestamp;
  ended_at: Timestamp | null;
  duration_ms: number | null;
  /** The process that runs it (its runner lease), for runs other than jobs; null for jobs and runs recorded before runners. */
  runner: Generated<string | null>;
  /** The channel its starter used (the principal's `via`: `mcp`, `console`), or null. */
  started_via: Generated<string | null>;
  /** When the run's data was erased (RunDataErased), or null. */
  data_erased_at: ColumnType<Date | null, string | null | undefined, string | null>;
  /** The schedule whose firing started the job, or null. */
  schedule_id: Generated<string | null>;
  /** A child run's parent (the run whose flow block started it), or null. */
  parent_execution_id: Generated<string | null>;
}

/** A flow's schedule; `next_firing_at` is the next time it is due (null: paused, removed, or it never fires again). */
export interface SchedulesTable {
  id: string;
  organization_id: string;
  project_id: string;
  flow_id: string;
  cron: string;
  timezone: string;
  missed: 'run' | 'skip';
  callback_url: string | null;
  status: 'active' | 'paused' | 'removed';
  created_at: Timestamp;
  /** Every firing up to this time is accounted for (fired, skipped, or before the schedule or its resume). */
  accounted_until: Timestamp;
  next_firing_at: ColumnType<Date | null, string | null, string | null>;
  last_fired_for: ColumnType<Date | null, string | null, string | null>;
  last_execution_id: string | null;
  last_error_code: string | null;
  fired_count: Generated<number>;
  skipped_count: Generated<number>;
}

/** A retention period of an organization (`project_id` '') or of one of its projects; `run_days` null: kept. */
export interface RetentionPeriodsTable {
  organization_id: string;
  project_id: string;
  run_days: number | null;
  set_at: Timestamp;
}

/** A run's data key sealed under the master key; not a read model (see migration 0020). */
export interface RunDataKeysTable {
  execution_id: string;
  /** NULL once the run's data is erased. */
  wrapped_key: string | null;
  created_at: Generated<Timestamp>;
  erased_at: Timestamp | null;
}

export interface JobLeasesTable {
  execution_id: string;
  owner: string;
  expires_at: Timestamp;
  claims: number;
  done_at: Timestamp | null;
}

export interface RunnerLeasesTable {
  runner_id: string;
  owner: string;
  expires_at: Timestamp;
  claims: number;
  done_at: Timestamp | null;
  /** The process's own report (src/health/processReports.ts), written as it renews the lease. */
  report: ColumnType<unknown, string | null | undefined, string | null>;
}

/** Which process runs which group of projections (src/leases/projectionLeases.ts). */
export interface ProjectionLeasesTable {
  runner_name: string;
  owner: string;
  expires_at: Timestamp;
  claims: number;
  done_at: Timestamp | null;
}

export interface WebhookDeliveriesTable {
  id: string;
  organization_id: string;
  execution_id: string;
  event: string;
  status: string;
  attempts: number;
  response_status: number | null;
  error_excerpt: string | null;
  created_at: Timestamp;
  next_attempt_at: Timestamp | null;
  updated_at: Timestamp;
  /** receiverHost() of its URL; null for deliveries created before it was kept. */
  receiver_host: string | null;
}

export interface TestCasesTable {
  id: string;
  flow_id: string;
  organization_id: string;
  project_id: string;
  name: string;
  definition: ColumnType<unknown, string, string>;
  /** The recorded run the case was made from (`test from-run`), or null. */
  from_execution_id: Generated<string | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface TestRunsTable {
  id: string;
  test_case_id: string;
  flow_id: string;
  organization_id: string;
  execution_id: string;
  target_kind: string;
  target_version_id: string | null;
  passed: boolean | null;
  started_at: Timestamp;
  finished_at: Timestamp | null;
}

export interface BacktestsTable {
  id: string;
  flow_id: string;
  organization_id: string;
  project_id: string;
  target_kind: 'version' | 'draft';
  target_version_id: string | null;
  target_version_number: number | null;
  selection: Json;
  only_completed: boolean;
  judge: Json | null;
  repeat_of: string | null;
  runner: string | null;
  status: 'running' | 'finished' | 'interrupted';
  total: number;
  same: Generated<number>;
  different: Generated<number>;
  failed: Generated<number>;
  /** Different answers its judge scored as not mattering. */
  accepted: Generated<number>;
  /** Chosen runs skipped because their data was erased before their comparison (BacktestRunSkipped). */
  erased: Generated<number>;
  started_at: Timestamp;
  finished_at: Timestamp | null;
}

export interface BacktestPairsTable {
  backtest_id: string;
  position: number;
  execution_id: string;
  backtest_execution_id: string;
  /** `erased`: skipped, never compared (BacktestRunSkipped); null while not compared yet. */
  outcome: 'same' | 'different' | 'failed' | 'erased' | null;
  changes: Json | null;
  more: number | null;
  original: Json | null;
  candidate: Json | null;
  judge: Json | null;
  compared_at: Timestamp | null;
}

export interface DeliveryLeasesTable {
  delivery_id: string;
  owner: string;
  expires_at: Timestamp;
  claims: Generated<number>;
  done_at: Timestamp | null;
  /** Set when the holder finished that attempt; the lease is dropped once the read model shows it. */
  finished_attempts: number | null;
}

export interface ReactorCheckpointsTable {
  name: string;
  position: ColumnType<string, number, number>;
}

export interface ProjectionCheckpointsTable {
  name: string;
  position: ColumnType<string, number, number>;
  updated_at: Generated<Date>;
  /** Set while the projection cannot apply the event at this position (it alone waits; the others go on). */
  stalled_at_position: ColumnType<string | null, number | null | undefined, number | null>;
  stalled_event_type: ColumnType<string | null, string | null | undefined, string | null>;
  stalled_error: ColumnType<string | null, string | null | undefined, string | null>;
  stalled_since: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export interface ReadModels {
  organizations: OrganizationsTable;
  members: MembersTable;
  projects: ProjectsTable;
  api_keys: ApiKeysTable;
  flows: FlowsTable;
  flow_blocks: FlowBlocksTable;
  flow_versions: FlowVersionsTable;
  credit_ledger: CreditLedgerTable;
  credit_balances: CreditBalancesTable;
  jobs: JobsTable;
  approvals: ApprovalsTable;
  runs: RunsTable;
  job_leases: JobLeasesTable;
  runner_leases: RunnerLeasesTable;
  projection_leases: ProjectionLeasesTable;
  webhook_deliveries: WebhookDeliveriesTable;
  delivery_leases: DeliveryLeasesTable;
  reactor_checkpoints: ReactorCheckpointsTable;
  projection_checkpoints: ProjectionCheckpointsTable;
  test_cases: TestCasesTable;
  test_runs: TestRunsTable;
  backtests: BacktestsTable;
  backtest_pairs: BacktestPairsTable;
  run_data_keys: RunDataKeysTable;
  retention_periods: RetentionPeriodsTable;
  schedules: SchedulesTable;
}

/** Tables a rebuild empties (all but the checkpoints, which it resets). */
export const readModelTables = ['organizations', 'members', 'projects', 'api_keys', 'flows', 'flow_blocks', 'flow_versions', 'credit_ledger', 'credit_balances', 'jobs', 'webhook_deliveries', 'test_cases', 'test_runs', 'runs', 'backtests', 'backtest_pairs', 'retention_periods', 'schedules', 'approvals'] as const;
