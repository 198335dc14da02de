/**
 * Writes the upgrade test's fixture (test/fixtures/upgrade/<name>/) with the code of an earlier
 * release: `npx tsx scripts/write-upgrade-fixture.ts --rev <tag or commit> --name <name>`.
 *
 * That release's own `seqflow serve` and CLI, from a git worktree of it, record a few runs twice:
 * - on its embedded PostgreSQL: the data folder, as `data-folder.tar.xz`;
 * - on the machine's PostgreSQL (127.0.0.1:5432, or SEQFLOW_FIXTURE_ADMIN_URL) with DATABASE_URL:
 *   a `pg_dump --format=custom` of it, as `database.dump`.
 * `manifest.json` says what they hold (the API key, the runs and their answers) for the test to
 * check that the new code serves the same. Run it at each release against the release before.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';

const ROOT = path.resolve(import.meta.dirname, '..');
const { values } = parseArgs({ options: { rev: { type: 'string' }, name: { type: 'string' } } });
if (!values.rev || !values.name) throw new Error('usage: write-upgrade-fixture.ts --rev <tag or commit> --name <fixture name>');
const rev = values.rev;
const out = path.join(ROOT, 'test/fixtures/upgrade', values.name);
const adminUrl = process.env.SEQFLOW_FIXTURE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

const FLOW = {
  slug: 'ticket-notes',
  name: 'Ticket notes',
  steps: [
    { block: { name: 'note', processor_type: 'code', code: 'return { customer: input.parameters.customer_id, note: input.message.toUpperCase() };' } },
    { block: { name: 'answer', processor_type: 'passthrough' } },
  ],
};

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

async function until<T>(probe: () => Promise<T | undefined>, what: string, gone: () => boolean = () => false, ms = 120_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    if (gone()) throw new Error(`the release stopped while waiting for ${what}`);
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** The earlier release's checkout; its node_modules are this one's when the lockfiles agree. */
function checkout(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'seqflow-release-'));
  execFileSync('git', ['worktree', 'add', '--detach', '--force', dir, rev], { cwd: ROOT, stdio: 'ignore' });
  const sameLock = readFileSync(path.join(dir, 'package-lock.json'), 'utf8') === readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8');
  if (sameLock) symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  else execFileSync('npm', ['ci', '--ignore-scripts'], { cwd: dir, stdio: 'inherit' });
  return dir;
}

function cli(release: string, env: Record<string, string>, args: string[]): unknown {
  const stdout = execFileSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { cwd: release, env: { ...process.env, ...env }, encoding: 'utf8' });
  return JSON.parse(stdout);
}

async function record(release: string, env: Record<string, string>) {
  const port = await freePort();
  const serveEnv = { ...env, PORT: String(port), SEQFLOW_CONSOLE_PORT: '0', SEQFLOW_METRICS_PORT: '0', SEQFLOW_HEALTH_PORT: '0', SEQFLOW_DEMO: 'true', LOG_LEVEL: 'warn' };
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve'], { cwd: release, env: { ...process.env, ...serveEnv }, stdio: ['ignore', 'inherit', 'inherit'] });
  let ended = false;
  const exited = new Promise((resolve) => child.on('close', (code) => ((ended = true), resolve(code))));
  const base = `http://127.0.0.1:${port}/api/v1`;
  try {
    await until(async () => ((await fetch(`${base}/health`)).ok ? true : undefined), 'the release to serve', () => ended);
    const { key } = cli(release, env, ['apikey', 'create', '--org', 'demo', '--project', 'demo', '--env', 'live']) as { key: string };
    const flowFile = path.join(release, 'ticket-notes.flow.json');
    writeFileSync(flowFile, JSON.stringify(FLOW));
    cli(release, env, ['flow', 'import', '--org', 'demo', '--project', 'demo', '--file', flowFile, '--publish', '--production', '--note', 'recorded by the earlier release']);
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const url = `${base}/seq/demo/demo/${FLOW.slug}`;
    const runs: { executionId: string; customer: string; result: unknown }[] = [];
    for (const customer of ['c-1001', 'c-1002']) {
      const answer = await fetch(`${url}/execute`, { method: 'POST', headers, body: JSON.stringify({ message: `printer jammed for ${customer}`, parameters: { customer_id: customer } }) });
      const body = (await answer.json()) as { executionId: string; result: unknown };
      if (!answer.ok) throw new Error(`execute answered ${answer.status}: ${JSON.stringify(body)}`);
      runs.push({ executionId: body.executionId, customer, result: body.result });
    }
    const accepted = (await (await fetch(`${url}/jobs`, { method: 'POST', headers, body: JSON.stringify({ message: 'refund please', parameters: { customer_id: 'c-2001' } }) })).json()) as { executionId: string };
    const job = await until(async () => {
      const poll = (await (await fetch(`${url}/jobs/${accepted.executionId}`, { headers })).json()) as { status: string; result?: unknown };
      return poll.status === 'completed' ? poll : undefined;
    }, 'the job to complete');
    return { apiKey: key, organization: 'demo', project: 'demo', flow: FLOW.slug, runs, job: { executionId: accepted.executionId, customer: 'c-2001', result: job.result } };
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

mkdirSync(out, { recursive: true });
const release = checkout();
const scratch = mkdtempSync(path.join(tmpdir(), 'seqflow-fixture-'));
chmodSync(scratch, 0o755); // the embedded PostgreSQL runs as the postgres user when this runs as root
try {
  const commit = execFileSync('git', ['rev-parse', rev], { cwd: ROOT, encoding: 'utf8' }).trim();

  // 1. The embedded default: a data folder.
  const dataDir = path.join(scratch, 'data');
  const embedded = await record(release, { SEQFLOW_DATA_DIR: dataDir });
  if (existsSync(path.join(dataDir, 'postgres/postmaster.pid'))) throw new Error('the embedded PostgreSQL did not stop');
  execFileSync('tar', ['-cJf', path.join(out, 'data-folder.tar.xz'), '-C', dataDir, '.']);

  // 2. A database of its own (DATABASE_URL), dumped as pg_dump's custom format.
  const name = `seqflow_upgrade_fixture_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const databaseUrl = new URL(adminUrl);
  databaseUrl.pathname = `/${name}`;
  const masterKey = randomBytes(32).toString('base64');
  try {
    const own = await record(release, { DATABASE_URL: databaseUrl.toString(), SEQFLOW_MASTER_KEY: masterKey });
    execFileSync('pg_dump', ['--format=custom', '--no-owner', '--file', path.join(out, 'database.dump'), databaseUrl.toString()]);
    writeFileSync(path.join(out, 'manifest.json'), `${JSON.stringify({ rev, commit, embedded, database: { ...own, masterKey } }, null, 2)}\n`);
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
  execFileSync('git', ['worktree', 'remove', '--force', release], { cwd: ROOT, stdio: 'ignore' });
}
