import { readFileSync } from 'node:fs';
import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import { catalogFileSchema, mergeCatalog } from '../domain/models/modelCatalog.ts';

const emptyAsUndefined = (value: unknown) => (value === '' ? undefined : value);
const optionalString = z.preprocess(emptyAsUndefined, z.string().optional());
const optionalUrl = z.preprocess(emptyAsUndefined, z.url().optional());
const optionalHttpUrl = z.preprocess(emptyAsUndefined, z.url({ protocol: /^https?$/, message: 'must be an absolute http(s) URL, e.g. https://api.openai.com/v1' }).optional());

const masterKey = z.preprocess(
  emptyAsUndefined,
  z
    .string()
    .refine((value) => Buffer.from(value, 'base64').length === 32 && /^[A-Za-z0-9+/]+={0,2}$/.test(value), {
      message: 'must be 32 bytes encoded as base64 (e.g. `openssl rand -base64 32`)',
    })
    .optional(),
);

/** SEQFLOW_MODEL_CATALOG: a JSON file of catalog entries, read, checked and merged over the built-in catalog at start (a bad one stops it, saying what is wrong). */
const modelCatalogFile = z.preprocess(
  emptyAsUndefined,
  z
    .string()
    .transform((file, ctx) => {
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}` });
        return z.NEVER;
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        ctx.addIssue({ code: 'custom', message: `${file} is not JSON (an object of entries by model name)` });
        return z.NEVER;
      }
      const entries = catalogFileSchema.safeParse(parsed);
      if (!entries.success) {
        ctx.addIssue({ code: 'custom', message: `${file}: ${entries.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}` });
        return z.NEVER;
      }
      const merged = mergeCatalog(entries.data);
      if ('problem' in merged) {
        ctx.addIssue({ code: 'custom', message: `${file}: ${merged.problem}` });
        return z.NEVER;
      }
      return merged.catalog;
    })
    .optional(),
);

const cidrList = z.preprocess(
  (value) => (typeof value === 'string' ? value.split(',').map((s) => s.trim()).filter(Boolean) : value),
  z.array(
    z.string().refine((cidr) => {
      try {
        ipaddr.parseCIDR(cidr);
        return true;
      } catch {
        return false;
      }
    }, { message: 'must be a comma-separated list of CIDR ranges such as 127.0.0.0/8' }),
  ),
);

/** The service's environment variables, each checked and defaulted (README: Configuration). */
export const envSchema = z
  .object({
    DATABASE_URL: optionalUrl,
    DATABASE_DIRECT_URL: optionalUrl,
    DATABASE_READ_URLS: z.preprocess(
      emptyAsUndefined,
      z
        .string()
        .transform((list) => list.split(',').map((url) => url.trim()).filter((url) => url.length > 0))
        .pipe(z.array(z.url().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')).max(16))
        .optional(),
    ),
    SEQFLOW_READ_WAIT_MS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(0).max(60_000).default(1_000)),
    SEQFLOW_DATA_DIR: z.preprocess(emptyAsUndefined, z.string().optional()),
    KURRENTDB_CONNECTION_STRING: z.preprocess(
      emptyAsUndefined,
      z.string().regex(/^(kurrentdb|kdb|esdb|kurrentdb\+discover|esdb\+discover):\/\//, 'must be a kurrentdb:// connection string').optional(),
    ),
    HOST: z.preprocess(emptyAsUndefined, z.string().default('127.0.0.1')),
    PORT: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(0).max(65535).default(8080)),
    SEQFLOW_MASTER_KEY: masterKey,
    OPENAI_API_KEY: optionalString,
    OPENAI_BASE_URL: optionalHttpUrl,
    ANTHROPIC_API_KEY: optionalString,
    ANTHROPIC_BASE_URL: optionalHttpUrl,
    GEMINI_API_KEY: optionalString,
    GEMINI_BASE_URL: optionalHttpUrl,
    SEQFLOW_COMPATIBLE_API_KEY: optionalString,
    AZURE_OPENAI_API_KEY: optionalString,
    AZURE_OPENAI_ENDPOINT: optionalHttpUrl,
    AZURE_OPENAI_API_VERSION: optionalString,
    SEQFLOW_COMPATIBLE_BASE_URL: optionalHttpUrl,
    SEQFLOW_PUBLIC_URL: z.preprocess(emptyAsUndefined, z.url({ protocol: /^https?$/, message: 'must be the absolute http(s) URL callers reach the service at, e.g. https://seqflow.example.com' }).optional()),
    SEQFLOW_MCP_ALLOWED_ORIGINS: z.preprocess(
      (value) => (typeof value === 'string' && value !== '' ? value.split(',').map((s) => s.trim()).filter(Boolean) : undefined),
      z.array(z.url({ message: 'must be a comma-separated list of origins such as https://app.example.com' })).optional(),
    ),
    SEQFLOW_CORS_ORIGINS: z.preprocess(
      (value) => (typeof value === 'string' && value !== '' ? value.split(',').map((s) => s.trim()).filter(Boolean) : undefined),
      z.array(z.union([z.literal('*'), z.url({ message: 'must be * or a comma-separated list of origins such as https://app.example.com' })])).optional(),
    ),
    SEQFLOW_RATE_LIMIT: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(0).max(10_000_000).default(0)),
    SEQFLOW_RATE_LIMIT_WINDOW_MS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1000).max(86_400_000).default(60_000)),
    SEQFLOW_METRICS_HOST: z.preprocess(emptyAsUndefined, z.string().default('127.0.0.1')),
    SEQFLOW_HEALTH_HOST: z.preprocess(emptyAsUndefined, z.string().default('127.0.0.1')),
    SEQFLOW_HEALTH_PORT: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(0).max(65535).default(8082)),
    SEQFLOW_METRICS_PORT: z.preprocess(emptyAsUndefined, z.union([z.literal('off'), z.coerce.number().int().min(0).max(65535)], { message: 'must be a port number (0: any free port) or off' }).optional()),
    SEQFLOW_OAUTH_CIMD: z.preprocess(emptyAsUndefined, z.enum(['true', 'false']).default('true')),
    SEQFLOW_OAUTH_MAX_UNUSED_CLIENTS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).max(1_000_000).default(10_000)),
    SEQFLOW_OAUTH_IDLE_DAYS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).max(3650).default(30)),
    SEQFLOW_TRUST_PROXY: z.preprocess(emptyAsUndefined, z.enum(['true', 'false']).default('false')),
    SEQFLOW_CONSOLE_HOST: z.preprocess(emptyAsUndefined, z.string().default('127.0.0.1')),
    SEQFLOW_CONSOLE_PORT: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(0).max(65535).default(8081)),
    SEQFLOW_CONSOLE_AUDIENCE: optionalString,
    SEQFLOW_CONSOLE_URL: optionalHttpUrl,
    SEQFLOW_MCP_RUNS_PER_MINUTE: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).max(100_000).default(30)),
    OAUTH_ISSUER: optionalUrl,
    OAUTH_AUDIENCE: optionalString,
    OAUTH_JWKS_URL: optionalUrl,
    SEQFLOW_OUTBOUND_ALLOW_CIDRS: cidrList.default([]),
    LOG_LEVEL: z.preprocess(
      emptyAsUndefined,
      z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    ),
    SEQFLOW_LOG_FORMAT: z.preprocess(emptyAsUndefined, z.enum(['auto', 'json', 'pretty']).default('auto')),
    // The OpenTelemetry SDK's own variable names, so a deployment configures Seqflow like its other services.
    OTEL_EXPORTER_OTLP_ENDPOINT: optionalHttpUrl,
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: optionalHttpUrl,
    OTEL_SERVICE_NAME: z.preprocess(emptyAsUndefined, z.string().default('seqflow')),
    // Unset: a demo only for a local start (no DATABASE_URL, NODE_ENV not production); see config.ts.
    SEQFLOW_DEMO: z.preprocess(emptyAsUndefined, z.enum(['true', 'false']).optional()),
    NODE_ENV: optionalString,
    SEQFLOW_DEFAULT_CREDITS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(0).default(0)),
    SEQFLOW_DEFAULT_MODEL: z.preprocess(emptyAsUndefined, z.string().min(1).default('gpt-4o-mini')),
    SEQFLOW_LLM_TIMEOUT_MS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(100).default(60_000)),
    SEQFLOW_LLM_MAX_REPLY_BYTES: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1024).default(8 * 1024 * 1024)),
    SEQFLOW_LLM_MAX_RETRIES: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(0).max(10).default(2)),
    SEQFLOW_LLM_MAX_RETRY_WAIT_MS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(0).max(600_000).default(20_000)),
    SEQFLOW_CODE_TIMEOUT_MS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(10).max(60_000).default(1000)),
    SEQFLOW_CODE_MEMORY_MB: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).max(1024).default(64)),
    SEQFLOW_CODE_MAX_OUTPUT_BYTES: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1024).max(64 * 1024 * 1024).default(1024 * 1024)),
    SEQFLOW_SECRET_GRACE_SECONDS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).max(30 * 86_400).default(86_400)),
    SEQFLOW_WEBHOOK_RETRY_DELAYS_MS: z.preprocess(
      (value) => (typeof value === 'string' && value !== '' ? value.split(',').map((v) => v.trim()) : undefined),
      z.array(z.coerce.number().int().min(1)).length(5, 'needs 5 delays, after failed attempts 1 to 5').optional(),
    ),
    SEQFLOW_OUTBOUND_EXTRA_CA_FILE: optionalString,
    SEQFLOW_AUDIT_SIGNING_KEY_FILE: optionalString,
    SEQFLOW_DEV_HTTP_CALLBACKS: z.preprocess(emptyAsUndefined, z.enum(['true', 'false']).default('false')),
    SEQFLOW_WEBHOOK_TIMEOUT_MS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(100).max(120_000).default(20_000)),
    SEQFLOW_WEBHOOK_CONCURRENCY: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).max(1024).default(128)),
    SEQFLOW_WEBHOOK_HOST_CONCURRENCY: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).max(1024).default(64)),
    SEQFLOW_DELIVERY_LEASE_MS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(200).max(3_600_000).default(60_000)),
    SEQFLOW_JOB_LEASE_MS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(200).max(3_600_000).default(30_000)),
    SEQFLOW_JOB_CONCURRENCY: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).max(256).default(4)),
    SEQFLOW_JOB_MAX_CLAIMS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).max(1000).default(5)),
    SEQFLOW_WORKER_ID: optionalString,
    SEQFLOW_RUNNER_LEASE_MS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(300).max(3_600_000).default(30_000)),
    SEQFLOW_SSE_KEEPALIVE_MS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(50).max(600_000).default(15_000)),
    SEQFLOW_IDEMPOTENCY_LEASE_MS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1000).max(86_400_000).default(900_000)),
    SEQFLOW_SHUTDOWN_GRACE_MS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(0).max(3_600_000).default(30_000)),
    SEQFLOW_RESTART_DELAY_MS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(10).max(600_000).default(500)),
    SEQFLOW_PROJECTION_LEASE_MS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(300).max(600_000).default(10_000)),
    SEQFLOW_RETENTION_SWEEP_MS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(100).max(86_400_000).default(600_000)),
    SEQFLOW_SCHEDULE_SWEEP_MS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(50).max(60_000).default(1_000)),
    SEQFLOW_SCHEDULE_MISSED_AFTER_MS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(0).max(86_400_000).default(60_000)),
    SEQFLOW_SCHEDULE_MAX_CATCH_UP: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).max(1_000).default(100)),
    SEQFLOW_WATCHDOG_INTERVAL_MS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(100).max(3_600_000).default(30_000)),
    SEQFLOW_WATCHDOG_SILENT_RUN_MS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1000).max(86_400_000).default(600_000)),
    SEQFLOW_WATCHDOG_PROJECTION_LAG: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).max(100_000_000).default(10_000)),
    SEQFLOW_LOOP_MAX_ITEMS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).max(10_000).default(100)),
    SEQFLOW_MODEL_REGISTRY: z.preprocess(
      emptyAsUndefined,
      z
        .string()
        .transform((text, ctx) => {
          try {
            return JSON.parse(text) as unknown;
          } catch {
            ctx.addIssue({ code: 'custom', message: 'must be a JSON object' });
            return z.NEVER;
          }
        })
        .pipe(z.record(z.string(), z.object({ imageMimeTypes: z.array(z.string()) })))
        .optional(),
    ),
    SEQFLOW_MODEL_CATALOG: modelCatalogFile,
  })
  .superRefine((env, ctx) => {
    if (env.DATABASE_URL && !env.SEQFLOW_MASTER_KEY) {
      ctx.addIssue({
        code: 'custom',
        path: ['SEQFLOW_MASTER_KEY'],
        message: 'is required when DATABASE_URL is set (32 bytes, base64)',
      });
    }
    if (env.DATABASE_READ_URLS && !env.DATABASE_URL) {
      ctx.addIssue({ code: 'custom', path: ['DATABASE_READ_URLS'], message: "needs DATABASE_URL (the primary whose streaming replicas they are) beside it" });
    }
    if (env.DATABASE_DIRECT_URL && !env.DATABASE_URL) {
      ctx.addIssue({ code: 'custom', path: ['DATABASE_DIRECT_URL'], message: 'needs DATABASE_URL (the pooled address, such as PgBouncer) beside it' });
    }
    if ((env.OAUTH_AUDIENCE || env.OAUTH_JWKS_URL) && !env.OAUTH_ISSUER) {
      ctx.addIssue({ code: 'custom', path: ['OAUTH_ISSUER'], message: 'is required when OAUTH_AUDIENCE or OAUTH_JWKS_URL is set' });
    }
  });
