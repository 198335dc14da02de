import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { percentile } from './percentile.ts';

const RUNS = 7;
const bin = fileURLToPath(new URL('../bin/seqflow.js', import.meta.url));

/** Wall time of one CLI invocation, in milliseconds. */
function timeCommand(args: string[], env: NodeJS.ProcessEnv) {
  const t0 = performance.now();
  execFileSync(process.execPath, [bin, ...args], { env, stdio: 'ignore' });
  return performance.now() - t0;
}

/**
 * The `seqflow` CLI: a write command (`org create`, which opens the runtime, appends and closes)
 * against `seqflow --version` (node and the CLI's entry, nothing else). Medians of 7.
 */
export function benchCli(databaseUrl: string) {
  const env = { ...process.env, DATABASE_URL: databaseUrl, SEQFLOW_MASTER_KEY: randomBytes(32).toString('base64'), LOG_LEVEL: 'silent' };
  const version: number[] = [];
  const write: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    version.push(timeCommand(['--version'], env));
    write.push(timeCommand(['org', 'create', '--slug', `cli-bench-${i}`, '--name', 'CLI bench'], env));
  }
  const median = (values: number[]) => Math.round(percentile(values.sort((a, b) => a - b), 50));
  return { versionMedianMs: median(version), orgCreateMedianMs: median(write), writeToVersion: Number((median(write) / median(version)).toFixed(1)) };
}
