import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { OTHER_LABEL } from './boundedLabel.ts';

/** Latency buckets in seconds, from a cached lookup to a slow model call. */
const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** What the gauges read at each scrape, set once the parts they read exist. */
export interface GaugeSources {
  /** Log positions each projection is behind the head. */
  projectionLag: () => Promise<{ name: string; behind: number }[]>;
  /** Jobs accepted and not yet claimed by any runner. */
  jobBacklog: () => Promise<number>;
  /** Code blocks waiting for a sandbox worker. */
  sandboxQueued: () => number;
  /** The watchdog's last findings, counted by kind (undefined before its first check, or where none runs). */
  watchdogFindings?: () => Record<string, number> | undefined;
  /** Flows' names (`organization/project/flow` slugs) by id, for the run counter's `flow` label. */
  flowNames?: (flowIds: string[]) => Promise<Map<string, string>>;
}

/**
 * The process's Prometheus metrics (prom-client), in a registry of its own: nothing global, so two
 * runtimes in one process (the tests) keep their counts apart. Names follow Prometheus conventions:
 * `seqflow_` prefix, base units (seconds), `_total` on counters.
 */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'seqflow_' });
  const registers = [registry];
  let sources: GaugeSources | undefined;
  // Runs ended, by flow id, mode and outcome (flow ids bounded by the run metrics), and the names found for them.
  const runCounts = new Map<string, { flowId: string; mode: string; outcome: string; count: number }>();
  const flowNames = new Map<string, string>();

  const metrics = {
    registry,
    httpRequestDuration: new Histogram({
      name: 'seqflow_http_request_duration_seconds',
      help: 'HTTP requests answered, by method, route template and status code, and how long they took',
      labelNames: ['method', 'route', 'status_code'],
      buckets: SECONDS,
      registers,
    }),
    runs: new Counter({
      name: 'seqflow_runs_total',
      help: 'Runs ended by this process, by flow (its id, and its organization/project/flow slugs), mode and outcome',
      labelNames: ['flow_id', 'flow', 'mode', 'outcome'],
      registers,
      // The flow's name is looked up when scraped (once per flow), not while a run ends.
      async collect() {
        const unnamed = [...new Set([...runCounts.values()].map((c) => c.flowId))].filter((id) => !flowNames.has(id) && id !== 'unknown' && id !== OTHER_LABEL);
        if (unnamed.length > 0 && sources?.flowNames) for (const [id, name] of await sources.flowNames(unnamed)) flowNames.set(id, name);
        this.reset();
        for (const c of runCounts.values()) this.inc({ flow_id: c.flowId, flow: flowNames.get(c.flowId) ?? c.flowId, mode: c.mode, outcome: c.outcome }, c.count);
      },
    }),
    stepDuration: new Histogram({ name: 'seqflow_step_duration_seconds', help: 'Blocks completed, by processor type, and how long they took', labelNames: ['processor_type'], buckets: SECONDS, registers }),
    modelCalls: new Counter({ name: 'seqflow_model_calls_total', help: 'Model calls, by model and outcome (ok or the error code)', labelNames: ['model', 'outcome'], registers }),
    modelCallDuration: new Histogram({ name: 'seqflow_model_call_duration_seconds', help: 'How long model calls took, by model', labelNames: ['model'], buckets: SECONDS, registers }),
    llmCost: new Counter({ name: 'seqflow_llm_cost_usd_total', help: "What model calls cost in US dollars at the model catalog's prices, by provider and model (calls of models without a price are not counted)", labelNames: ['provider', 'model'], registers }),
    modelTokens: new Counter({ name: 'seqflow_model_tokens_total', help: 'Tokens used by model calls, by model and type (input or output)', labelNames: ['model', 'type'], registers }),
    eventsAppended: new Counter({ name: 'seqflow_events_appended_total', help: 'Events this process appended to the log', registers }),
    appendDuration: new Histogram({ name: 'seqflow_event_append_duration_seconds', help: 'How long appends to the log took (one append may carry several events)', buckets: SECONDS, registers }),
    jobClaims: new Counter({ name: 'seqflow_job_claims_total', help: 'Jobs claimed (or taken over) by this process', registers }),
    deliveryAttempts: new Counter({ name: 'seqflow_webhook_attempts_total', help: 'Webhook delivery attempts made by this process, by outcome', labelNames: ['outcome'], registers }),
    deliveryAttemptDuration: new Histogram({ name: 'seqflow_webhook_attempt_duration_seconds', help: 'How long webhook delivery attempts took, by outcome', labelNames: ['outcome'], buckets: SECONDS, registers }),
    /** A model call ended: `outcome` is `ok` or the failure's code. */
    modelCalled(model: string, outcome: string, seconds: number, usage?: { input: number; output: number }) {
      metrics.modelCalls.inc({ model, outcome });
      metrics.modelCallDuration.observe({ model }, seconds);
      if (usage) {
        metrics.modelTokens.inc({ model, type: 'input' }, usage.input);
        metrics.modelTokens.inc({ model, type: 'output' }, usage.output);
      }
    },
    /** A webhook attempt ended: `outcome` is `succeeded`, `http_<status class>` or how it failed (`timeout`, `network_error`, `blocked_address`). */
    attemptFinished(outcome: string, seconds: number) {
      metrics.deliveryAttempts.inc({ outcome });
      metrics.deliveryAttemptDuration.observe({ outcome }, seconds);
    },
    /** A run ended (`flowId` already bounded by the caller: `other` past its limit). */
    runEnded(flowId: string, mode: string, outcome: string) {
      const key = `${flowId}\u0000${mode}\u0000${outcome}`;
      const known = runCounts.get(key);
      if (known) known.count++;
      else runCounts.set(key, { flowId, mode, outcome, count: 1 });
    },
    /** Sets what the gauges read at each scrape. */
    readGaugesFrom(next: GaugeSources) {
      sources = next;
    },
  };

  new Gauge({
    name: 'seqflow_projection_lag_events',
    help: 'Log positions each projection is behind the head of the log',
    labelNames: ['projection'],
    registers,
    async collect() {
      this.reset();
      for (const { name, behind } of (await sources?.projectionLag()) ?? []) this.set({ projection: name }, behind);
    },
  });
  new Gauge({
    name: 'seqflow_job_backlog',
    help: 'Jobs accepted and not yet claimed by a runner',
    registers,
    async collect() {
      if (sources) this.set(await sources.jobBacklog());
    },
  });
  new Gauge({
    name: 'seqflow_sandbox_queue_depth',
    help: 'Code blocks waiting for a sandbox worker in this process',
    registers,
    collect() {
      if (sources) this.set(sources.sandboxQueued());
    },
  });
  new Gauge({
    name: 'seqflow_watchdog_findings',
    help: "Work the watchdog found that should have moved and did not, by kind (its last check's)",
    labelNames: ['kind'],
    registers,
    collect() {
      this.reset();
      for (const [kind, count] of Object.entries(sources?.watchdogFindings?.() ?? {})) this.set({ kind }, count);
    },
  });
  return metrics;
}

export type Metrics = ReturnType<typeof createMetrics>;
