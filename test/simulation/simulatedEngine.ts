import { trace } from '@opentelemetry/api';
import pino from 'pino';
import type { EventStore } from '../../src/eventstore/eventStore.ts';
import type { EngineDependencies } from '../../src/execution/engineDependencies.ts';
import { createRunConditions } from '../../src/execution/runConditions.ts';
import { createBlockReferencesMemo } from '../../src/execution/blockReferencesMemo.ts';
import { createExecutionUpdates } from '../../src/execution/executionUpdates.ts';
import { createLlmProcessor } from '../../src/execution/processors/llmProcessor.ts';
import { DEFAULT_MODEL_CATALOG } from '../../src/domain/models/modelCatalog.ts';
import type { AddressGuard } from '../../src/outbound/addressGuard.ts';

/**
 * The engine's dependencies without a database: the given log, the real llm processor whose
 * requests `fetch` answers (no network, no address guard to pass), credits without end, a service
 * provider account, no tracing. Code blocks, child runs and the read models are not there: flows of
 * llm and passthrough blocks only.
 */
export function simulatedEngine(eventStore: EventStore, fetch: (input: string | URL | Request, init?: RequestInit) => Promise<Response>, now: () => Date): EngineDependencies {
  const tracer = trace.getTracer('simulation');
  return {
    eventStore,
    logger: pino({ level: 'silent' }),
    updates: createExecutionUpdates(),
    db: undefined as never,
    creditBalance: async () => 1_000_000_000,
    flows: undefined as never,
    now,
    llm: createLlmProcessor({ guard: { fetch } as unknown as AddressGuard, timeoutMs: 60_000, maxRetries: 0, maxRetryWaitMs: 0, maxReplyBytes: 1 << 20, tracer }),
    sandbox: undefined as never,
    http: undefined as never,
    secrets: undefined as never,
    storeSecret: undefined as never,
    childRuns: undefined as never,
    references: createBlockReferencesMemo(),
    conditions: createRunConditions(),
    settings: { defaultModel: 'gpt-4o-mini', llmTimeoutMs: 60_000, llmMaxRetries: 0, llmMaxRetryWaitMs: 0, llmMaxReplyBytes: 1 << 20, codeTimeoutMs: 1000, codeMemoryMb: 16, codeMaxOutputBytes: 1 << 20, loopMaxItems: 100, sseKeepAliveMs: 15_000, modelRegistry: {}, modelCatalog: DEFAULT_MODEL_CATALOG },
    providerFor: async (owner) => ({ provider: 'openai', owner, apiKey: 'sim', baseUrl: 'https://models.simulated/v1', organizationKey: false }),
    tracer,
  };
}
