import { InvalidArgumentError } from 'commander';
import { ApiError } from '../domain/errors/apiError.ts';
import type { RecordedEvent } from '../eventstore/eventStore.ts';
import type { Runtime } from '../runtime/runtime.ts';

/**
 * What every `seqflow` command shares. Commands load their implementation only when they run
 * (dynamic imports), so `seqflow --version` and `--help` answer without loading the service.
 */
export const cliPrincipal = { principal: { kind: 'cli' as const, id: process.env.USER ?? 'operator' } };

export const printJson = (value: unknown) => process.stdout.write(`${JSON.stringify(value)}\n`);

export const eventLine = (e: RecordedEvent) => ({
  position: e.position,
  streamId: e.streamId,
  revision: e.revision,
  id: e.id,
  type: e.type,
  schemaVersion: e.schemaVersion,
  data: e.data,
  metadata: e.metadata,
  recordedAt: e.recordedAt,
  hash: e.hash,
});

/** Opens the runtime on the configured database, runs `work`, brings the read models up to date, prints the result. */
export async function withRuntime<T>(work: (runtime: Runtime) => Promise<T>, options: { catchUp?: boolean } = {}): Promise<void> {
  const [{ loadConfig }, { createLogger }, { openRuntime }] = await Promise.all([import('../config/config.ts'), import('../runtime/logger.ts'), import('../runtime/runtime.ts')]);
  const config = loadConfig();
  const runtime = await openRuntime(config, createLogger(process.env.LOG_LEVEL ?? 'warn', 2));
  if (runtime.database === 'embedded') process.stderr.write(`seqflow: embedded database in ${config.dataDir}\n`);
  try {
    const result = await work(runtime);
    if (options.catchUp !== false) await runtime.projections.catchUp();
    if (result !== undefined) printJson(result);
  } finally {
    await runtime.close();
  }
}

export const positiveInt = (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('must be a non-negative integer');
  return n;
};

export const withoutPosition = <T extends { position: number }>({ position: _p, ...rest }: T) => rest;

/**
 * A secret given to the CLI: from the environment variable `variable`, else from standard input
 * (piped, or typed and ended with Ctrl-D). Never from the command line, where `ps` shows it.
 */
export async function readSecret(variable: string, what: string): Promise<string> {
  const fromEnv = process.env[variable]?.trim();
  if (fromEnv) return fromEnv;
  if (process.stdin.isTTY) process.stderr.write(`Paste the ${what}, then press Enter and Ctrl-D (or set ${variable}):\n`);
  let text = '';
  for await (const chunk of process.stdin) text += chunk;
  const secret = text.trim();
  if (!secret) throw new ApiError('VALIDATION_FAILED', `no ${what} given: pipe it on standard input or set ${variable}`);
  return secret;
}
