import { readFileSync } from 'node:fs';
import { costUsd } from '../domain/models/modelCatalog.ts';
import { routeModel } from '../domain/models/modelRoute.ts';
import type { Tracer } from '@opentelemetry/api';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { createFlowCatalog } from '../caches/flowCatalog.ts';
import type { LogWatch } from '../caches/logWatch.ts';
import type { OrganizationStates } from '../caches/organizationStates.ts';
import type { Config } from '../config/config.ts';
import type { EventStore } from '../eventstore/eventStore.ts';
import type { EngineDependencies, ReplicaReads } from '../execution/engineDependencies.ts';
import { createExecutionUpdates } from '../execution/executionUpdates.ts';
import { type ModelRegistry, createModelRegistry } from '../execution/modelRegistry.ts';
import { createRunConditions } from '../execution/runConditions.ts';
import { createChildRuns } from '../execution/childRunLauncher.ts';
import { createBlockReferencesMemo } from '../execution/blockReferencesMemo.ts';
import { createSchemaValidators } from '../execution/schemaValidators.ts';
import { type CodeSandbox, createCodeSandbox } from '../execution/processors/codeSandboxPool.ts';
import { createLlmProcessor } from '../execution/processors/llmProcessor.ts';
import { providerAccountResolver } from '../execution/providerAccounts.ts';
import { organizationSecretReader } from '../execution/organizationSecrets.ts';
import { setSecret } from '../commands/secretCommands.ts';
import type { Metrics } from '../observability/metrics.ts';
import { OTHER_LABEL } from '../observability/boundedLabel.ts';
import { createRunMetrics } from '../observability/runMetrics.ts';
import { type AddressGuard, createAddressGuard } from '../outbound/addressGuard.ts';
import type { ReadModels } from '../projections/readModelSchema.ts';
import { sharedCreditBalance } from '../queries/creditQueries.ts';
import type { RunDataKeys } from '../security/runDataKeys.ts';

/** The engine a process runs with, and what the API checks before a run: the outbound guard, the model registry, the code sandbox. */
export type WiredEngine = EngineDependencies & { guard: AddressGuard; registry: ModelRegistry; sandbox: CodeSandbox; runDataKeys?: RunDataKeys };

/** Makes the engine's parts from the configuration: one outbound guard for every model call, one sandbox pool, one flow catalog. */
export function wireEngine(
  config: Config,
  parts: { eventStore: EventStore; logger: Logger; db: Kysely<ReadModels>; replicaReads?: ReplicaReads; logWatch: LogWatch; organizations: OrganizationStates; masterKey: Buffer; metrics: Metrics; tracer: Tracer; now: () => Date; runner: string; runDataKeys?: RunDataKeys },
): WiredEngine {
  const { eventStore, logger, db, replicaReads, logWatch, organizations, masterKey, metrics, tracer, now, runner, runDataKeys } = parts;
  const guard = createAddressGuard({ allowCidrs: config.outboundAllowCidrs, extraCa: config.outboundExtraCaFile ? readFileSync(config.outboundExtraCaFile, 'utf8') : undefined });
  const registry = createModelRegistry(config.execution.modelRegistry, config.execution.modelCatalog);
  const sandbox = createCodeSandbox({ timeoutMs: config.execution.codeTimeoutMs, memoryMb: config.execution.codeMemoryMb }, { maxOutputBytes: config.execution.codeMaxOutputBytes });
  const engine: WiredEngine = {
    eventStore,
    logger,
    updates: createExecutionUpdates(),
    db,
    replicaReads,
    creditBalance: sharedCreditBalance(db),
    flows: createFlowCatalog(db, { logWatch }),
    now,
    llm: createLlmProcessor({ guard, timeoutMs: config.execution.llmTimeoutMs, maxRetries: config.execution.llmMaxRetries, maxRetryWaitMs: config.execution.llmMaxRetryWaitMs, maxReplyBytes: config.execution.llmMaxReplyBytes, azureApiVersion: config.azure.apiVersion, observeCall: observeModelCall(metrics, registry), tracer }),
    sandbox,
    http: { fetch: guard.fetch, validators: createSchemaValidators({ max: 1000 }) },
    secrets: organizationSecretReader(organizations, masterKey),
    storeSecret: async (organizationId, name, value) => void (await setSecret({ eventStore, now }, { organizationId, name, value }, masterKey, { principal: { kind: 'system', id: 'oauth-refresh' } })),
    references: createBlockReferencesMemo(),
    conditions: createRunConditions(),
    catalog: registry,
    settings: config.execution,
    providerFor: providerAccountResolver(organizations, masterKey, { openai: config.openai, anthropic: config.anthropic, google: config.google, compatible: config.compatible, azure: config.azure }),
    guard,
    registry,
    runMetrics: createRunMetrics(metrics),
    tracer,
    runner,
    childRuns: createChildRuns(() => engine),
    ...(runDataKeys ? { runDataKeys } : {}),
  };
  return engine;
}

/**
 * Each model call in the metrics: its count, seconds and tokens under the model's name (or `other`,
 * for one the catalog does not list), and its cost at the catalog's prices by provider and model.
 */
function observeModelCall(metrics: Metrics, registry: ModelRegistry) {
  return (model: string, outcome: string, seconds: number, usage?: { input: number; output: number }) => {
    const label = registry.knows(model) ? model : OTHER_LABEL;
    metrics.modelCalled(label, outcome, seconds, usage);
    const cost = usage ? costUsd(registry.entry(model), { promptTokens: usage.input, completionTokens: usage.output }) : null;
    if (cost !== null) metrics.llmCost.inc({ provider: routeModel(model).provider, model: label }, cost);
  };
}
