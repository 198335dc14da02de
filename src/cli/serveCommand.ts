import { mkdirSync } from 'node:fs';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { buildConsoleServer } from '../api/console/consoleServer.ts';
import { buildServer } from '../api/rest/server.ts';
import type { Config } from '../config/config.ts';
import { takeSignalsFromEmbeddedPostgres } from '../database/embeddedPostgres.ts';
import { acquireServeLock } from '../database/serveLock.ts';
import { failRun } from '../execution/failRun.ts';
import { BlockedAddressError } from '../outbound/addressGuard.ts';
import { printDemo } from '../runtime/demoBanner.ts';
import { createLogger, logFormatFor, logsWritten } from '../runtime/logger.ts';
import { type Runtime, openRuntime } from '../runtime/runtime.ts';
import { startWorkers } from '../runtime/workerRole.ts';
import { withinGrace } from '../supervision/withinGrace.ts';
import { buildMetricsServer } from '../api/metrics/metricsRoutes.ts';
import { buildHealthServer } from '../api/health/healthServer.ts';

export type Role = 'all' | 'api' | 'worker';

/** A start that cannot go on, with a message that says what to do; printed without a stack. */
export class StartupError extends Error {
  override name = 'StartupError';
}

/**
 * `seqflow serve`: the HTTP API, the workers, or both, until SIGINT/SIGTERM, then a graceful stop:
 * no new connections; requests, runs, jobs and delivery attempts in flight get
 * SEQFLOW_SHUTDOWN_GRACE_MS to finish; after that, sync runs still going are recorded as failed
 * (RUN_INTERRUPTED) and answered 503, job and delivery leases are released for other workers, and
 * the embedded PostgreSQL stops last.
 */
export async function serve(config: Config, role: Role): Promise<void> {
  // A stop asked for while the service starts (a deploy that changes its mind, a test's teardown) is
  // kept, and carried out once it has started; without this, the embedded PostgreSQL package's
  // handlers took the signal and the process went on running.
  takeSignalsFromEmbeddedPostgres();
  const duringStart = signalsDuringStart();
  const logger = createLogger(config.logLevel, 1, logFormatFor(config.logFormat, process.stdout.isTTY === true));
  const address = `http://${config.host}:${config.port}`;
  let lock: { release(): void } | undefined;
  if (!config.databaseUrl) {
    mkdirSync(config.dataDir, { recursive: true });
    // Before the embedded PostgreSQL starts: a second server would otherwise share the first's and lose it when that one stops.
    lock = acquireServeLock(config.dataDir, address);
    process.stderr.write(`Data folder: ${config.dataDir} (embedded PostgreSQL; set SEQFLOW_DATA_DIR or DATABASE_URL to change)\n`);
  }
  let runtime: Runtime | undefined;
  try {
    runtime = await openRuntime(config, logger, role);
    const workers = role === 'api' ? undefined : await startWorkers(runtime);
    const app = role === 'worker' ? undefined : await buildServer(runtime);
    if (app) await listen(app, config);
    // The operator console: its own listener (loopback unless configured), never the public port.
    const consoleApp = role === 'worker' ? undefined : await buildConsoleServer(runtime);
    if (consoleApp) await listenConsole(consoleApp, config);
    // A worker has no public port: its health is served on a listener of its own.
    const healthApp = role === 'worker' ? await buildHealthServer(runtime) : undefined;
    if (healthApp) await listenHealth(healthApp, config);
    // Left open through a shutdown (the process exits at its end): the drain can still be scraped.
    await listenMetrics(runtime, config, logger);
    await warnAboutRefusedAddresses(runtime, logger);
    warnAboutPlainHttpCallbacks(runtime, logger);
    if (app && config.demo) await printDemo(runtime, app, config, consoleApp, process.stderr.isTTY === true);
    // Which audience the REST API and the console require of OAuth tokens (OAUTH_AUDIENCE, else the public URL).
    logger.info({ role, database: runtime.database, eventLog: runtime.eventStore.kind, dataDir: runtime.database === 'embedded' ? config.dataDir : undefined, oauthAudience: config.oauth?.audience }, 'seqflow started');
    handleSignals(runtime, app, workers, () => lock?.release(), consoleApp ?? healthApp, duringStart.handOver());
  } catch (error) {
    duringStart.handOver();
    await runtime?.close().catch(() => undefined);
    lock?.release();
    throw error;
  }
}

async function listenHealth(app: FastifyInstance, config: Config) {
  try {
    await app.listen({ host: config.health.host, port: config.health.port });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EADDRNOTAVAIL' || code === 'EACCES') throw new StartupError(`Cannot listen on ${config.health.host}:${config.health.port} (${code}) for a worker's /api/v1/health: set SEQFLOW_HEALTH_HOST and SEQFLOW_HEALTH_PORT (0: any free port)`);
    throw error;
  }
}

async function listenConsole(app: FastifyInstance, config: Config) {
  try {
    await app.listen({ host: config.console.host, port: config.console.port });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new StartupError(`Port ${config.console.port} on ${config.console.host} (the operator console) is already in use: set SEQFLOW_CONSOLE_PORT to a free port`);
    if (code === 'EADDRNOTAVAIL' || code === 'EACCES') throw new StartupError(`Cannot listen on ${config.console.host}:${config.console.port} (${code}): set SEQFLOW_CONSOLE_HOST and SEQFLOW_CONSOLE_PORT`);
    throw error;
  }
}

/**
 * `/metrics` on its own listener (loopback:9464 unless configured). The default port already taken
 * (a second process on the machine) only warns: the service runs, its metrics wait for a port of
 * their own. A port the operator chose must be had.
 */
async function listenMetrics(runtime: Runtime, config: Config, logger: Logger): Promise<FastifyInstance | undefined> {
  const { host, port, explicit } = config.metrics;
  if (port === 'off') return undefined;
  const app = await buildMetricsServer(runtime.metrics, runtime.logger as FastifyBaseLogger);
  try {
    await app.listen({ host, port });
    return app;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EADDRINUSE' && code !== 'EADDRNOTAVAIL' && code !== 'EACCES') throw error;
    await app.close();
    if (explicit) throw new StartupError(`Cannot listen on ${host}:${port} (${code}) for /metrics: set SEQFLOW_METRICS_HOST and SEQFLOW_METRICS_PORT (or SEQFLOW_METRICS_PORT=off)`);
    const message = `/metrics is not served: ${host}:${port} is taken (${code}), probably by another Seqflow process on this machine; give this one SEQFLOW_METRICS_PORT of its own (0: any free port), or SEQFLOW_METRICS_PORT=off`;
    logger.warn(message);
    process.stderr.write(`Warning: ${message}\n`);
    return undefined;
  }
}

async function listen(app: FastifyInstance, config: Config) {
  try {
    await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new StartupError(`Port ${config.port} on ${config.host} is already in use: set PORT to a free port (e.g. PORT=${config.port + 1}), or stop what uses it`);
    if (code === 'EADDRNOTAVAIL' || code === 'EACCES') throw new StartupError(`Cannot listen on ${config.host}:${config.port} (${code}): set HOST and PORT`);
    throw error;
  }
}

/**
 * An address the operator configured that the outbound guard will refuse fails what needs it (a
 * model provider: every llm block routed to it; the token issuer: every JWT sign-in); say so at start, with the fix.
 */
async function warnAboutRefusedAddresses(runtime: Runtime, logger: Logger) {
  const { openai, anthropic, google, azure, compatible, oauth } = runtime.config;
  const configured: [string, string | undefined, string][] = [
    ['OPENAI_BASE_URL', openai.baseUrl, 'a model server'],
    ['ANTHROPIC_BASE_URL', anthropic.baseUrl, 'a model server'],
    ['GEMINI_BASE_URL', google.baseUrl, 'a model server'],
    ['AZURE_OPENAI_ENDPOINT', azure.baseUrl, 'a model server'],
    ['SEQFLOW_COMPATIBLE_BASE_URL', compatible.baseUrl, 'a model server'],
    ['OAUTH_ISSUER', oauth && !oauth.jwksUrl ? oauth.issuer : undefined, 'a token issuer'],
    ['OAUTH_JWKS_URL', oauth?.jwksUrl, 'a token issuer'],
  ];
  for (const [name, url, what] of configured) {
    if (!url) continue;
    try {
      await runtime.execution.guard.check(url);
    } catch (error) {
      if (!(error instanceof BlockedAddressError)) continue;
      const message = `${name} ${url} is refused by the outbound address guard (${error.reason}); for ${what} on this machine or your network, allow its range with SEQFLOW_OUTBOUND_ALLOW_CIDRS (e.g. 127.0.0.0/8)`;
      logger.warn(message);
      process.stderr.write(`Warning: ${message}\n`);
    }
  }
}

/** A development setting that weakens what callbacks need is said at start, with what it allows. */
function warnAboutPlainHttpCallbacks(runtime: Runtime, logger: Logger) {
  if (!runtime.config.webhooks.plainHttpInAllowedRanges) return;
  const ranges = runtime.config.outboundAllowCidrs;
  const message = ranges.length > 0
    ? `SEQFLOW_DEV_HTTP_CALLBACKS=true: webhooks may use plain http to ${ranges.join(', ')} (development only; every other callbackUrl must be https)`
    : 'SEQFLOW_DEV_HTTP_CALLBACKS=true has no effect: SEQFLOW_OUTBOUND_ALLOW_CIDRS allows no range, so every callbackUrl must still be https';
  logger.warn(message);
  process.stderr.write(`Warning: ${message}\n`);
}

/** SIGINT/SIGTERM while the service starts: the first is kept for after the start, a second exits at once. */
function signalsDuringStart() {
  let received: NodeJS.Signals | undefined;
  const note = (signal: NodeJS.Signals) => {
    if (received) process.exit(1);
    received = signal;
  };
  process.on('SIGINT', note);
  process.on('SIGTERM', note);
  return {
    /** Stops listening; the signal received meanwhile, if any. */
    handOver() {
      process.off('SIGINT', note);
      process.off('SIGTERM', note);
      return received;
    },
  };
}

function handleSignals(runtime: Runtime, app: FastifyInstance | undefined, workers: { stop(): Promise<void> } | undefined, release: () => void, consoleApp: FastifyInstance | undefined, receivedDuringStart: NodeJS.Signals | undefined) {
  const { logger } = runtime;
  const graceMs = runtime.config.shutdownGraceMs;
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting at once');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal, graceMs }, 'shutting down: no new connections; requests and runs in flight may finish');
    let drained = true;
    try {
      await drain(runtime, app, workers, consoleApp);
    } catch (error) {
      // The runtime is closed all the same: an embedded PostgreSQL left running would outlive this process.
      drained = false;
      logger.error({ err: error }, 'the shutdown could not drain everything; closing the rest');
    }
    await runtime.close(); // the embedded PostgreSQL last, whatever failed before it
    release();
    logger.info('stopped');
    await logsWritten(logger, 2000);
    process.exit(drained ? 0 : 1);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  if (receivedDuringStart) void shutdown(receivedDuringStart);
}

/** No new connections; requests, runs, jobs and deliveries in flight get the grace period, then are interrupted. */
async function drain(runtime: Runtime, app: FastifyInstance | undefined, workers: { stop(): Promise<void> } | undefined, consoleApp: FastifyInstance | undefined) {
  const closing = app?.close() ?? Promise.resolve();
  // A keep-alive connection whose request has been answered would hold the close until its timeout: close each as it goes idle.
  const idleSweep = app ? setInterval(() => app.server.closeIdleConnections(), 100) : undefined;
  const serving = (async () => {
    try {
      if (!(await withinGrace(closing, runtime.config.shutdownGraceMs))) await interruptRuns(runtime, app!, closing);
    } finally {
      clearInterval(idleSweep);
    }
  })();
  // Each awaited to its end, so that none fails unheard while another is still draining.
  const ends = await Promise.allSettled([serving, workers?.stop(), withinGrace(consoleApp?.close() ?? Promise.resolve(), 1000)]);
  const failure = ends.find((end) => end.status === 'rejected');
  if (failure) throw failure.reason;
}

/** The grace period is over: end the runs still going in the log, answer their callers, and close what is left. */
async function interruptRuns(runtime: Runtime, app: FastifyInstance, closing: Promise<unknown>) {
  const message = `the service shut down before the run finished (after a grace period of ${runtime.config.shutdownGraceMs} ms)`;
  const active = runtime.lifecycle.active();
  const principal = { kind: 'system' as const, id: 'shutdown' };
  await Promise.all(active.map((executionId) => failRun(runtime.execution, executionId, { code: 'RUN_INTERRUPTED', message, principal }).catch(() => false)));
  runtime.logger.warn({ interrupted: active }, 'runs still going at the end of the grace period were recorded as failed');
  runtime.lifecycle.interruptAll(message);
  // The 503 answers go out before the remaining connections are closed.
  if (!(await withinGrace(closing, 1000))) app.server.closeAllConnections();
  await closing;
}
