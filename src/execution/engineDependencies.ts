import type { Tracer } from '@opentelemetry/api';
import type { ReadRouting } from '../database/readRouting.ts';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { CommandDependencies } from '../commands/commandHandler.ts';
import type { Config } from '../config/config.ts';
import type { ProviderName } from '../domain/models/modelRoute.ts';
import type { CatalogEntry } from '../domain/models/modelCatalog.ts';
import type { EventStore } from '../eventstore/eventStore.ts';
import type { ReadModels } from '../projections/readModelSchema.ts';
import type { FlowCatalog } from '../caches/flowCatalog.ts';
import type { ExecutionUpdates } from './executionUpdates.ts';
import type { CodeSandbox } from './processors/codeSandboxPool.ts';
import type { LlmProcessor } from './processors/llmProcessor.ts';
import type { ProviderAccount } from './providers/providerAccount.ts';
import type { RecordedRunObserver } from '../observability/runMetrics.ts';
import type { Block } from '../domain/flows/flowDefinition.ts';
import type { BlockReferences } from '../domain/flows/stepReferences.ts';
import type { RunConditions } from './runConditions.ts';
import type { RetryWaits } from '../supervision/retrying.ts';
import type { Fetch } from '../outbound/cappedReply.ts';
import type { SchemaValidators } from './schemaValidators.ts';
import type { SecretReader } from './organizationSecrets.ts';
import type { ChildRuns } from './childRuns.ts';

/** What the engine runs with: the log, the read models, the block processors, settings. Made once by the runtime. */
export interface EngineDependencies {
  eventStore: EventStore;
  /** Where internal errors are logged in full (the run records only their error id). */
  logger: Logger;
  /** In-process news of runs, for /step readers. */
  updates: ExecutionUpdates;
  db: Kysely<ReadModels>;
  /**
   * Read replicas for reads that may be a little behind (a backtest's choice of runs): `db` reads
   * on one `within` a need (src/database/readRouting.ts); absent, everything reads `db` above.
   */
  replicaReads?: ReplicaReads;
  /** Tokens an organization has left, as far as the ledger has been projected (creditQueries.ts). */
  creditBalance: (organizationId: string) => Promise<number>;
  /** Flows and their (cached, immutable) versions. */
  flows: FlowCatalog;
  now: () => Date;
  /** How retries of its appends (a lost connection, a concurrent writer) wait: real time unless given (a simulation's). */
  retryWaits?: RetryWaits;
  llm: LlmProcessor;
  sandbox: CodeSandbox;
  /** What http blocks send their requests with: the outbound address guard's fetch, and their output schemas' validators. */
  http: { fetch: Fetch; validators: SchemaValidators };
  /** The organization's secrets a request names (`{{secrets.<name>}}`), decrypted at the moment of sending. */
  secrets: SecretReader;
  /** Stores a secret's next version (an MCP server's refreshed OAuth tokens), encrypted, as the organization's SecretSet event. */
  storeSecret: (organizationId: string, name: string, value: string) => Promise<void>;
  /** The earlier blocks a block reads by name (stepReferences.ts), worked out once per block object. */
  references: (block: Block) => BlockReferences;
  /** Decides blocks' and parallel steps' `run_if` conditions. */
  conditions: RunConditions;
  settings: Config['execution'];
  /** The provider account for an organization's llm calls (its own key, or the service's), if any. */
  providerFor: (organizationId: string, provider?: ProviderName) => Promise<ProviderAccount | undefined>;
  /** The model catalog's entries (prices among them): where a step's cost comes from. Without it, no cost is recorded. */
  catalog?: { entry(model: string): CatalogEntry | undefined };
  /** Makes the runs', steps' and model calls' spans (records nothing when tracing is off). */
  tracer: Tracer;
  /** Told of every run append (run, step and claim metrics). */
  runMetrics?: RecordedRunObserver;
  /** This process's runner lease, named in the run events it writes (runnerLease.ts). */
  runner?: string;
  /** How flow blocks start and continue their child runs (the engine's own entry points). */
  childRuns: ChildRuns;
}

export type { ToolRequest } from './executionRequest.ts';

/** The part of the engine's dependencies that commands run with: the log and the clock. */
export const commandsOf = (engine: Pick<EngineDependencies, 'eventStore' | 'now' | 'retryWaits'>): CommandDependencies => ({ eventStore: engine.eventStore, now: engine.now, retryWaits: engine.retryWaits });

/** The read models where read replicas may serve a read, and the position this process has appended up to. */
export interface ReplicaReads {
  db: Kysely<ReadModels>;
  within: ReadRouting<ReadModels>['within'];
  appendedPosition: () => number;
}
