import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { loadConfig } from '../src/config/config.ts';
import { openRuntime } from '../src/runtime/runtime.ts';

/** A runtime on a bench database whose model is the scripted server at `modelBaseUrl`, credits plenty, logs silent unless BENCH_LOG_LEVEL. */
export function openBenchRuntime(databaseUrl: string, modelBaseUrl: string) {
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    SEQFLOW_MASTER_KEY: randomBytes(32).toString('base64'),
    OPENAI_BASE_URL: modelBaseUrl,
    OPENAI_API_KEY: 'bench',
    SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
    SEQFLOW_DEFAULT_CREDITS: '1000000000',
    LOG_LEVEL: 'silent',
  });
  return openRuntime(config, pino({ level: process.env.BENCH_LOG_LEVEL ?? 'silent' }));
}
