/**
 * `npm run bench`: every figure as JSON on stdout, then the goals as a Markdown table on stderr
 * (so `npm run bench > figures.json` keeps the JSON whole).
 *
 * Each section runs on fresh databases of BENCH_DATABASE_URL's server (default: the local
 * PostgreSQL at 127.0.0.1:5432; if none answers, an embedded one), and the log figures also against
 * KurrentDB when KURRENTDB_CONNECTION_STRING is set. BENCH_ONLY=log,execute,erasure,step,jobs,webhooks,cli,roles,split,tests,backtests,mcp,audit,console
 * runs only the sections named.
 */
import { cpus, loadavg } from 'node:os';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { createKurrentDbEventStore } from '../src/eventstore/kurrentdb/kurrentDbEventStore.ts';
import { createPostgresEventStore } from '../src/eventstore/postgres/postgresEventStore.ts';
import { migrateReadModels } from '../src/projections/migrateReadModels.ts';
import type { ReadModels } from '../src/projections/readModelSchema.ts';
import { benchAudit, benchAuditRuns } from './auditBench.ts';
import { openBenchDatabases } from './benchDatabases.ts';
import { benchCli } from './cliBench.ts';
import { benchConsole } from './consoleBench.ts';
import { benchDeliveries } from './deliveryBench.ts';
import { inOwnProcess } from './ownProcess.ts';
import { withDeadline } from './deadline.ts';
import { benchErasureCost } from './erasureCostBench.ts';
import { benchExecute } from './executeBench.ts';
import { benchStep } from './stepBench.ts';
import { goalRows, markdownTable } from './goalsTable.ts';
import { benchJobs } from './jobsBench.ts';
import { benchStore, catchUpThroughput, projectionLag } from './logBench.ts';
import { benchMcp } from './mcpBench.ts';
import { benchAssistantFirstContact } from './assistantFirstContactBench.ts';
import { benchRoles } from './rolesBench.ts';
import { benchSplit } from './splitBench.ts';
import { benchTestSuite } from './testSuiteBench.ts';
import { benchBacktest } from './backtestBench.ts';

pg.types.setTypeParser(20, (value) => Number(value));
const only = process.env.BENCH_ONLY?.split(',').map((s) => s.trim());
const round = (n: number, digits = 0) => Number(n.toFixed(digits));
const loadAtStart = loadavg();

const databases = await openBenchDatabases();
const pool = new pg.Pool({ connectionString: databases.url, max: 24 });
// Dropping the bench database at the end terminates idle connections: expected, not a failure.
pool.on('error', () => undefined);
const db = new Kysely<ReadModels>({ dialect: new PostgresDialect({ pool }) });

/** A section ends within this, whatever it waits for. */
const SECTION_DEADLINE_MS = 30 * 60_000;
const failures: string[] = [];

/**
 * A section's figures, or why it did not run, or why it failed: a failing or hanging section is
 * reported in its place (and fails the command at the end) while the others still run.
 */
async function section<T>(name: string, work: () => Promise<T>): Promise<T | string> {
  if (only && !only.includes(name)) return 'skipped: not in BENCH_ONLY';
  try {
    return await withDeadline(work(), SECTION_DEADLINE_MS, `the ${name} section`);
  } catch (error) {
    const message = `failed: ${error instanceof Error ? error.message : String(error)}`;
    failures.push(`${name}: ${message}`);
    process.stderr.write(`bench section ${name} ${message}\n`);
    return message;
  }
}

try {
  const postgres = await section('log', async () => {
    const postgresStore = createPostgresEventStore({ pool, connectionString: databases.url });
    await postgresStore.migrate();
    await migrateReadModels(db);
    const store = await benchStore(postgresStore, pool, createPostgresEventStore({ pool, connectionString: databases.url, groupCommit: false }));
    // The peer, same server, same load: Emmett's PostgreSQL event store, in a process of its own.
    const emmett = await inOwnProcess<{ appendsPerSecond: number }>(new URL('./emmettProcess.ts', import.meta.url), [await databases.create('emmett'), '16', '500'], 300_000, "Emmett's appends");
    const ours = store.appends.singleEvent16Writers.appendsPerSecond;
    Object.assign(store.appends.singleEvent16Writers, { emmett: { appendsPerSecond: emmett.appendsPerSecond, oursToEmmett: round(ours / emmett.appendsPerSecond, 2) } });
    const catchUp = await catchUpThroughput(postgresStore);
    const lag = await projectionLag(postgresStore, db, 1000, 8);
    // Twice the rate: keeping up means the lag stays bounded instead of growing for the whole run.
    const lagAt2000 = await projectionLag(postgresStore, db, 2000, 8);
    // The five groups shared by two runners, as two worker processes run them (issue 41: 4,000 commands/s).
    const lagAt4000Parallel = await projectionLag(postgresStore, db, 4000, 8, 2);
    await postgresStore.close();
    return { ...store, subscriberCatchUp: { events: catchUp.count, eventsPerSecond: catchUp.perSecond }, projectionLagUnderLoad: lag, projectionLagAt2000: lagAt2000, projectionLagAt4000ParallelRunners: lagAt4000Parallel };
  });

  const execute = await section('execute', async () => benchExecute(await databases.create('exec')));
  const erasureCost = await section('erasure', () => benchErasureCost((name) => databases.create(`erasure_${name}`)));
  const step = await section('step', async () => benchStep(await databases.create('step')));
  const jobs = await section('jobs', async () => benchJobs(await databases.create('jobs'), await databases.create('graphile')));
  const webhookDeliveries = await section('webhooks', async () => benchDeliveries(await databases.create('hooks')));
  const cli = await section('cli', async () => benchCli(await databases.create('cli')));
  const roles = await section('roles', async () => benchRoles((name) => databases.create(`roles_${name}`)));
  const split = await section('split', () => benchSplit());
  const testSuite = await section('tests', async () => benchTestSuite(await databases.create('suite')));
  const backtest = await section('backtests', async () => benchBacktest(await databases.create('backtest')));
  const assistantEndpoint = await section('mcp', async () => ({
    ...(await benchMcp(await databases.create('mcp'))),
    firstContact: await benchAssistantFirstContact(await databases.create('mcpfirst')),
  }));
  const audit = await section('audit', async () => ({
    ...(await benchAudit(await databases.create('unchained'), await databases.create('chained'))),
    ...(await benchAuditRuns(await databases.create('auditruns'))),
  }));
  const operatorConsole = await section('console', async () => benchConsole(await databases.create('console')));

  let kurrentdb: unknown = 'skipped: KURRENTDB_CONNECTION_STRING not set';
  if (process.env.KURRENTDB_CONNECTION_STRING) {
    const store = createKurrentDbEventStore(process.env.KURRENTDB_CONNECTION_STRING);
    kurrentdb = { ...(await benchStore(store, undefined)), subscriberCatchUp: await catchUpThroughput(store) };
    await store.close();
  }

  const machine = { cpus: cpus().length, node: process.version, loadAverageAtStart: loadAtStart.map((n) => round(n, 2)), loadAverage: loadavg().map((n) => round(n, 2)) };
  const figures = {
    machine,
    postgres,
    execute,
    erasureCost,
    step,
    jobs,
    webhookDeliveries,
    cli,
    roles,
    split,
    testSuite,
    backtest,
    assistantEndpoint,
    audit,
    operatorConsole,
    kurrentdb,
  };
  process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
  process.stderr.write(`\n${markdownTable(goalRows(figures), { cpus: machine.cpus, loadAverage: machine.loadAverage })}\n`);
} finally {
  await db.destroy();
  await databases.dropAll();
}
// A section that hung may still hold timers or connections: the figures are out, the command ends.
process.exit(failures.length > 0 ? 1 : 0);
