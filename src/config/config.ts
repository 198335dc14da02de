import { type CatalogEntry, DEFAULT_MODEL_CATALOG } from '../domain/models/modelCatalog.ts';
import { hostname } from 'node:os';
import path from 'node:path';
import { defaultDataFolder } from './dataFolder.ts';
import { envSchema } from './environment.ts';

export interface Config {
  databaseUrl: string | undefined;
  /**
   * The PostgreSQL server itself when `databaseUrl` is a pooler in transaction mode (PgBouncer):
   * what must hold a session of its own (the log's LISTEN connection, shadow read models) connects here.
   */
  databaseDirectUrl: string | undefined;
  /** PostgreSQL streaming replicas of DATABASE_URL's server that serve reads that may be a little behind (src/database/readRouting.ts). */
  databaseReadUrls: string[];
  /** How long such a read waits for the read models to show the caller's own writes before it reads the primary as it is. */
  readWaitMs: number;
  dataDir: string;
  kurrentDbConnectionString: string | undefined;
  host: string;
  port: number;
  masterKey: Buffer | undefined;
  openai: { apiKey: string | undefined; baseUrl: string | undefined };
  /** The service's accounts with the other providers (a model routed to one that has neither key nor base URL cannot run). */
  anthropic: { apiKey: string | undefined; baseUrl: string | undefined };
  google: { apiKey: string | undefined; baseUrl: string | undefined };
  compatible: { apiKey: string | undefined; baseUrl: string | undefined };
  /** Azure OpenAI: the resource's endpoint is the account's base URL; the API version every request names. */
  azure: { apiKey: string | undefined; baseUrl: string | undefined; apiVersion: string | undefined };
  /** `audience`: OAUTH_AUDIENCE, else the public URL (never none: a token of any audience would pass). */
  oauth: { issuer: string; audience: string; jwksUrl: string | undefined } | undefined;
  /**
   * The embedded OAuth authorization server (at `<public URL>/oauth`), on when no OAUTH_ISSUER is
   * set, so assistants can sign in to the MCP endpoint of a plain `npm start`.
   */
  embeddedOAuth: { issuer: string } | undefined;
  /** The operator console's own listener (loopback by default), and the audience of operators' OAuth tokens (else OAUTH_AUDIENCE). */
  console: { host: string; port: number; audience: string; /** Where members' browsers reach the console (SEQFLOW_CONSOLE_URL), if they can: assistants' sign-in pages link to it. */ url: string | null };
  /** Where callers reach the service (SEQFLOW_PUBLIC_URL, else http://HOST:PORT), without a trailing slash. */
  publicUrl: string;
  mcp: {
    /** The MCP endpoint's canonical URL: its OAuth resource identifier and the audience its tokens must carry. */
    resource: string;
    /** Its protected-resource metadata document (RFC 9728), named in every 401. */
    resourceMetadataUrl: string;
    /** The read-only endpoint (`/api/v1/mcp/readonly`: only the reading tools): its resource identifier and metadata document. */
    readOnly: { resource: string; resourceMetadataUrl: string };
    /** Browser origins allowed to call it (the public URL's own origin unless set). */
    allowedOrigins: string[];
    /** `run_test_case` / `run_all_tests` calls per subject per minute. */
    runsPerMinute: number;
  };
  /**
   * `/metrics` on a listener of its own (any role), never on the public port: loopback and
   * DEFAULT_METRICS_PORT unless configured; `off`: not served. `explicit`: the port was chosen, so
   * failing to bind it stops the start (the default port taken only warns).
   */
  metrics: { host: string; port: number | 'off'; explicit: boolean };
  /** Where a `--role worker` process serves `/api/v1/health` (it has no public port): SEQFLOW_HEALTH_HOST/PORT. */
  health: { host: string; port: number };
  /** The embedded authorization server ends a sign-in unused for this many days. */
  oauthIdleDays: number;
  /** SEQFLOW_OAUTH_MAX_UNUSED_CLIENTS: registrations no member signed in with that are kept; a new one evicts the oldest past it. */
  oauthMaxUnusedClients: number;
  /** SEQFLOW_OAUTH_CIMD: the embedded server takes Client ID Metadata Documents (and advertises them). */
  oauthClientMetadataDocuments: boolean;
  /** X-Forwarded-* headers are believed (client address, scheme, host): only behind a proxy that sets them. */
  trustProxy: boolean;
  /** Browser origins allowed to call the REST API (CORS); unset: no CORS headers, browsers on other origins are refused by the browser. */
  corsOrigins: string[] | undefined;
  /** Requests per API key per window on the REST API; undefined: no limit. Counted per process. */
  rateLimit: { max: number; windowMs: number } | undefined;
  outboundAllowCidrs: string[];
  logLevel: string;
  /** `auto`: pretty at a terminal, JSON otherwise. */
  logFormat: 'auto' | 'json' | 'pretty';
  /** OpenTelemetry traces: exported (OTLP over HTTP, JSON) to `tracesUrl` when one is set, else not recorded at all. */
  tracing: { tracesUrl: string | undefined; serviceName: string };
  demo: boolean;
  defaultCredits: number;
  webhooks: {
    /** How long deliveries also carry v2, signed with the previous secret, after a rotation. */
    secretGraceSeconds: number;
    /** Development: callbackUrl may use plain http for hosts whose addresses are all in SEQFLOW_OUTBOUND_ALLOW_CIDRS. */
    plainHttpInAllowedRanges: boolean;
    /** Delays before attempts 2..6; the spec's +1 min ... +12 h unless shortened (tests). */
    retryDelaysMs: number[] | undefined;
    /** A whole attempt (connect 5 s within it): 20 s. */
    timeoutMs: number;
    /** A dispatcher's hold on an attempt; after it runs out (the dispatcher died), the attempt is made again. */
    leaseMs: number;
    /** Attempts in flight at once per worker process, and of those at most `hostConcurrency` to one receiver host. */
    concurrency: number;
    hostConcurrency: number;
  };
  /** First delay before a failed background task (projections, reactors, job runner) is restarted; it doubles up to 30 s. */
  restartDelayMs: number;
  /** On SIGTERM/SIGINT: how long requests and runs in flight get to finish before they are interrupted. */
  shutdownGraceMs: number;
  /** How long an unanswered Idempotency-Key claim holds its key (its process may have died): then a retry runs anew. */
  idempotencyLeaseMs: number;
  /** A CA certificate (PEM file) outbound TLS also trusts: development and tests only. */
  outboundExtraCaFile: string | undefined;
  /** An Ed25519 private key (PEM file) that signs the manifests of `seqflow audit export`. */
  auditSigningKeyFile: string | undefined;
  /** The watchdog (src/watchdog): how often it checks, when a running run is silent, how far a projection may lag. */
  watchdog: { intervalMs: number; silentRunMs: number; projectionMaxBehind: number };
  /** How often a worker process erases the personal data of runs past their retention period. */
  retentionSweepMs: number;
  /** The term of a worker's lease on a group of projections (src/leases/projectionLeases.ts). */
  projectionLeaseMs: number;
  /** Schedules: how often workers look for due firings, when a firing counts as missed, and how many missed ones a catch-up runs. */
  schedules: { sweepMs: number; missedAfterMs: number; maxCatchUp: number };
  jobs: {
    /** A claimed job's lease: renewed while its worker lives; after it runs out, another worker takes the job over. */
    leaseMs: number;
    concurrency: number;
    /** SEQFLOW_WORKER_ID, else `<host>-<pid>`: names the worker in claims and delivery leases. */
    workerId: string;
    /** A job claimed this many times without finishing fails with JOB_ABANDONED. */
    maxClaims: number;
    /** A process's runner lease (runnerLease.ts): its sync, step and test runs are ended as interrupted this long after it died. */
    runnerLeaseMs: number;
  };
  execution: {
    defaultModel: string;
    llmTimeoutMs: number;
    llmMaxRetries: number;
    /** SEQFLOW_LLM_MAX_RETRY_WAIT_MS: the longest wait before a model call is retried. */
    llmMaxRetryWaitMs: number;
    /** The largest model reply read (bytes of HTTP body): a larger one fails the block, PROVIDER_ERROR. */
    llmMaxReplyBytes: number;
    codeTimeoutMs: number;
    codeMemoryMb: number;
    /** Largest output (JSON text) a code block may return. */
    codeMaxOutputBytes: number;
    loopMaxItems: number;
    /** Interval of keep-alive comments on /step streams. */
    sseKeepAliveMs: number;
    /** Extra models, or overrides: which image MIME types each accepts (empty: text-only). */
    modelRegistry: Record<string, { imageMimeTypes: string[] }>;
    /** The model catalog: the built-in one with SEQFLOW_MODEL_CATALOG's entries over it (checked at start). */
    modelCatalog: Readonly<Record<string, CatalogEntry>>;
  };
}

export class ConfigError extends Error {
  readonly problems: string[];

  constructor(problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.problems = problems;
    this.name = 'ConfigError';
  }
}

/** The MCP endpoint's one canonical URL and where its metadata lives (RFC 9728: the well-known segment goes between host and path). */
/** Prometheus exporters' customary port (OpenTelemetry's Prometheus exporter uses it too). */
export const DEFAULT_METRICS_PORT = 9464;

export function mcpResourceOf(publicUrl: string) {
  const url = new URL(`${publicUrl}/api/v1/mcp/`);
  const readOnly = new URL(`${publicUrl}/api/v1/mcp/readonly`);
  return {
    resource: url.href,
    resourceMetadataUrl: `${url.origin}/.well-known/oauth-protected-resource${url.pathname}`,
    readOnly: { resource: readOnly.href, resourceMetadataUrl: `${readOnly.origin}/.well-known/oauth-protected-resource${readOnly.pathname}` },
  };
}

/** The OTLP spec's rule: the traces variable is the whole URL; the general one is a base that gets `v1/traces`. */
function tracesUrlOf(tracesEndpoint: string | undefined, endpoint: string | undefined) {
  if (tracesEndpoint) return tracesEndpoint;
  return endpoint ? `${endpoint.replace(/\/+$/, '')}/v1/traces` : undefined;
}

/** Parses the environment; a bad value throws a ConfigError naming the variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => {
        const [variable, item] = issue.path;
        return `${String(variable ?? '(environment)')} ${issue.message}${item === undefined ? '' : ` (entry ${Number(item) + 1})`}`;
      }),
    );
  }
  const e = parsed.data;
  // Unset: the address the service listens on (as the start banner prints it); `localhost` for a wildcard one.
  const listenHost = ['0.0.0.0', '::'].includes(e.HOST) ? 'localhost' : e.HOST.includes(':') ? `[${e.HOST}]` : e.HOST;
  const publicUrl = (e.SEQFLOW_PUBLIC_URL ?? `http://${listenHost}:${e.PORT}`).replace(/\/+$/, '');
  return {
    databaseUrl: e.DATABASE_URL,
    databaseDirectUrl: e.DATABASE_DIRECT_URL,
    databaseReadUrls: e.DATABASE_READ_URLS ?? [],
    readWaitMs: e.SEQFLOW_READ_WAIT_MS,
    dataDir: e.SEQFLOW_DATA_DIR ? path.resolve(cwd, e.SEQFLOW_DATA_DIR) : defaultDataFolder(cwd),
    kurrentDbConnectionString: e.KURRENTDB_CONNECTION_STRING,
    host: e.HOST,
    port: e.PORT,
    masterKey: e.SEQFLOW_MASTER_KEY ? Buffer.from(e.SEQFLOW_MASTER_KEY, 'base64') : undefined,
    openai: { apiKey: e.OPENAI_API_KEY, baseUrl: e.OPENAI_BASE_URL },
    anthropic: { apiKey: e.ANTHROPIC_API_KEY, baseUrl: e.ANTHROPIC_BASE_URL },
    google: { apiKey: e.GEMINI_API_KEY, baseUrl: e.GEMINI_BASE_URL },
    compatible: { apiKey: e.SEQFLOW_COMPATIBLE_API_KEY, baseUrl: e.SEQFLOW_COMPATIBLE_BASE_URL },
    azure: { apiKey: e.AZURE_OPENAI_API_KEY, baseUrl: e.AZURE_OPENAI_ENDPOINT, apiVersion: e.AZURE_OPENAI_API_VERSION },
    // Without an audience, a token minted for anything else (the assistant endpoint, another service) would pass: the public URL is the default.
    oauth: e.OAUTH_ISSUER ? { issuer: e.OAUTH_ISSUER, audience: e.OAUTH_AUDIENCE ?? publicUrl, jwksUrl: e.OAUTH_JWKS_URL } : undefined,
    publicUrl,
    console: { host: e.SEQFLOW_CONSOLE_HOST, port: e.SEQFLOW_CONSOLE_PORT, audience: e.SEQFLOW_CONSOLE_AUDIENCE ?? e.OAUTH_AUDIENCE ?? publicUrl, url: e.SEQFLOW_CONSOLE_URL?.replace(/\/+$/, '') ?? null },
    embeddedOAuth: e.OAUTH_ISSUER ? undefined : { issuer: `${publicUrl}/oauth` },
    health: { host: e.SEQFLOW_HEALTH_HOST, port: e.SEQFLOW_HEALTH_PORT },
    metrics: { host: e.SEQFLOW_METRICS_HOST, port: e.SEQFLOW_METRICS_PORT ?? DEFAULT_METRICS_PORT, explicit: e.SEQFLOW_METRICS_PORT !== undefined },
    trustProxy: e.SEQFLOW_TRUST_PROXY === 'true',
    oauthIdleDays: e.SEQFLOW_OAUTH_IDLE_DAYS,
    oauthMaxUnusedClients: e.SEQFLOW_OAUTH_MAX_UNUSED_CLIENTS,
    oauthClientMetadataDocuments: e.SEQFLOW_OAUTH_CIMD === 'true',
    corsOrigins: e.SEQFLOW_CORS_ORIGINS?.map((o) => (o === '*' ? o : new URL(o).origin)),
    rateLimit: e.SEQFLOW_RATE_LIMIT > 0 ? { max: e.SEQFLOW_RATE_LIMIT, windowMs: e.SEQFLOW_RATE_LIMIT_WINDOW_MS } : undefined,
    mcp: { ...mcpResourceOf(publicUrl), allowedOrigins: e.SEQFLOW_MCP_ALLOWED_ORIGINS?.map((o) => new URL(o).origin) ?? [new URL(publicUrl).origin], runsPerMinute: e.SEQFLOW_MCP_RUNS_PER_MINUTE },
    outboundAllowCidrs: e.SEQFLOW_OUTBOUND_ALLOW_CIDRS,
    logLevel: e.LOG_LEVEL,
    logFormat: e.SEQFLOW_LOG_FORMAT,
    tracing: { tracesUrl: tracesUrlOf(e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, e.OTEL_EXPORTER_OTLP_ENDPOINT), serviceName: e.OTEL_SERVICE_NAME },
    // Safe by default: a deployment (its own database, or NODE_ENV=production) seeds no demo organization with credits unless asked to.
    demo: e.SEQFLOW_DEMO ? e.SEQFLOW_DEMO === 'true' : !e.DATABASE_URL && e.NODE_ENV !== 'production',
    defaultCredits: e.SEQFLOW_DEFAULT_CREDITS,
    webhooks: {
      secretGraceSeconds: e.SEQFLOW_SECRET_GRACE_SECONDS,
      plainHttpInAllowedRanges: e.SEQFLOW_DEV_HTTP_CALLBACKS === 'true',
      retryDelaysMs: e.SEQFLOW_WEBHOOK_RETRY_DELAYS_MS,
      timeoutMs: e.SEQFLOW_WEBHOOK_TIMEOUT_MS,
      leaseMs: e.SEQFLOW_DELIVERY_LEASE_MS,
      concurrency: e.SEQFLOW_WEBHOOK_CONCURRENCY,
      hostConcurrency: e.SEQFLOW_WEBHOOK_HOST_CONCURRENCY,
    },
    outboundExtraCaFile: e.SEQFLOW_OUTBOUND_EXTRA_CA_FILE,
    auditSigningKeyFile: e.SEQFLOW_AUDIT_SIGNING_KEY_FILE,
    restartDelayMs: e.SEQFLOW_RESTART_DELAY_MS,
    retentionSweepMs: e.SEQFLOW_RETENTION_SWEEP_MS,
    projectionLeaseMs: e.SEQFLOW_PROJECTION_LEASE_MS,
    schedules: { sweepMs: e.SEQFLOW_SCHEDULE_SWEEP_MS, missedAfterMs: e.SEQFLOW_SCHEDULE_MISSED_AFTER_MS, maxCatchUp: e.SEQFLOW_SCHEDULE_MAX_CATCH_UP },
    watchdog: { intervalMs: e.SEQFLOW_WATCHDOG_INTERVAL_MS, silentRunMs: e.SEQFLOW_WATCHDOG_SILENT_RUN_MS, projectionMaxBehind: e.SEQFLOW_WATCHDOG_PROJECTION_LAG },
    shutdownGraceMs: e.SEQFLOW_SHUTDOWN_GRACE_MS,
    idempotencyLeaseMs: e.SEQFLOW_IDEMPOTENCY_LEASE_MS,
    jobs: { leaseMs: e.SEQFLOW_JOB_LEASE_MS, concurrency: e.SEQFLOW_JOB_CONCURRENCY, workerId: e.SEQFLOW_WORKER_ID ?? `${hostname()}-${process.pid}`, maxClaims: e.SEQFLOW_JOB_MAX_CLAIMS, runnerLeaseMs: e.SEQFLOW_RUNNER_LEASE_MS },
    execution: {
      defaultModel: e.SEQFLOW_DEFAULT_MODEL,
      llmTimeoutMs: e.SEQFLOW_LLM_TIMEOUT_MS,
      llmMaxRetries: e.SEQFLOW_LLM_MAX_RETRIES,
      llmMaxRetryWaitMs: e.SEQFLOW_LLM_MAX_RETRY_WAIT_MS,
      llmMaxReplyBytes: e.SEQFLOW_LLM_MAX_REPLY_BYTES,
      codeTimeoutMs: e.SEQFLOW_CODE_TIMEOUT_MS,
      codeMemoryMb: e.SEQFLOW_CODE_MEMORY_MB,
      codeMaxOutputBytes: e.SEQFLOW_CODE_MAX_OUTPUT_BYTES,
      loopMaxItems: e.SEQFLOW_LOOP_MAX_ITEMS,
      sseKeepAliveMs: e.SEQFLOW_SSE_KEEPALIVE_MS,
      modelRegistry: e.SEQFLOW_MODEL_REGISTRY ?? {},
      modelCatalog: e.SEQFLOW_MODEL_CATALOG ?? DEFAULT_MODEL_CATALOG,
    },
  };
}
