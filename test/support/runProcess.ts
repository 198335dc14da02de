import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '../..');
export const TSX = path.join(ROOT, 'node_modules/.bin/tsx');

export interface ProcessResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A child's whole output and exit code, once it has ended. */
function completion(child: ChildProcess): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk) => (stdout += chunk));
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Runs `seqflow ARGS` as a separate process, as a user would (from the sources), with `input` on its standard input. */
export function runCli(args: string[], env: Record<string, string | undefined>, input?: string): Promise<ProcessResult> {
  const child = spawn(TSX, ['src/cli/main.ts', ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
  if (input !== undefined) child.stdin!.end(input);
  return completion(child);
}

/** The MCP Inspector's CLI mode (`mcp-inspector --cli ARGS`), its catalog kept in `catalogDir` rather than the home folder. */
export function runInspectorCli(args: string[], catalogDir: string): Promise<ProcessResult> {
  const env = { ...process.env, MCP_CATALOG_PATH: path.join(catalogDir, 'mcp.json') };
  return completion(spawn(path.join(ROOT, 'node_modules/.bin/mcp-inspector'), ['--cli', ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] }));
}

const workerOutputs = new WeakMap<ChildProcess, () => string>();
const KEPT_OUTPUT = 16_384;

/**
 * `seqflow serve --role worker` as its own process group (so a test can kill it outright). Its health
 * listener takes any free port unless told one: on the default port, a second worker (of this test,
 * or of another test file running beside it) failed to start and exited, and the test ran on one.
 * The last 16 KiB of what it writes (warnings and errors) are kept for `workerOutput`: a test that
 * waits in vain for a worker can say what the worker said.
 */
export function spawnWorker(env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve', '--role', 'worker'], {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    // A short projection lease: tests kill workers, and the others take a dead one's projection runners over after a lease.
    env: { ...process.env, SEQFLOW_DEMO: 'false', LOG_LEVEL: 'warn', SEQFLOW_METRICS_PORT: '0', SEQFLOW_HEALTH_PORT: '0', SEQFLOW_PROJECTION_LEASE_MS: '2000', ...env },
  });
  let kept = '';
  const keep = (chunk: Buffer) => void (kept = (kept + chunk.toString('utf8')).slice(-KEPT_OUTPUT));
  for (const stream of [child.stdout!, child.stderr!]) {
    stream.on('data', keep);
    // Read, so the worker never blocks on a full pipe; unreferenced, so it keeps no test process alive.
    (stream as unknown as { unref?: () => void }).unref?.();
  }
  workerOutputs.set(child, () => kept);
  return child;
}

/** The last of what a worker started by spawnWorker wrote. */
export const workerOutput = (child: ChildProcess) => workerOutputs.get(child)?.() ?? '';

/**
 * `seqflow serve` (API and workers) as its own process group, its output collected. `node` runs the
 * sources itself with tsx's loader, as a signal must reach the service as it would in production:
 * the tsx command relays a signal to its child and SIGKILLs it if the child has not taken the signal
 * within 30 ms, as a child busy on a loaded machine may not (a graceful shutdown became a kill).
 */
export function spawnServe(env: Record<string, string>): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve'], {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    // Any free port for the operator console and the metrics: test servers run side by side.
    env: { ...process.env, SEQFLOW_DEMO: 'false', LOG_LEVEL: 'warn', SEQFLOW_CONSOLE_PORT: '0', SEQFLOW_METRICS_PORT: '0', SEQFLOW_PROJECTION_LEASE_MS: '2000', ...env },
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, output: () => output, exited };
}
