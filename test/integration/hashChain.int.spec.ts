import { randomUUID } from 'node:crypto';
import { Kysely, Migrator, PostgresDialect } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyLog } from '../../src/audit/logVerification.ts';
import { addMember, createOrganization } from '../../src/commands/organizationCommands.ts';
import { createProject } from '../../src/commands/projectCommands.ts';
import { importFlow } from '../../src/commands/flowCommands.ts';
import { createPostgresEventStore } from '../../src/eventstore/postgres/postgresEventStore.ts';
import * as eventLog0001 from '../../src/eventstore/postgres/migrations/0001_event_log.ts';
import * as eventLog0002 from '../../src/eventstore/postgres/migrations/0002_hash_chain.ts';
import { runCli } from '../support/runProcess.ts';
import { createTestDatabase, type TestDatabase } from '../support/testDatabase.ts';
import { createTestRuntime, type TestRuntime, testPrincipal } from '../support/testRuntime.ts';

const metadata = () => ({ correlationId: randomUUID(), causationId: null, principal: { kind: 'system', id: 'test' }, occurredAt: new Date().toISOString() });

describe('the tamper-evident event log (hash chains per stream)', () => {
  let t: TestRuntime;
  let pool: pg.Pool;
  let orgStream: string;
  let flowStream: string;

  /** Runs `tamper` on the log, lets `check` look, then puts every row back as it was. */
  const tampered = async (tamper: string, params: unknown[], check: () => Promise<void>) => {
    const { rows: saved } = await pool.query('SELECT * FROM seqflow_events');
    const { rows: heads } = await pool.query('SELECT * FROM seqflow_streams');
    await pool.query(tamper, params);
    try {
      await check();
    } finally {
      await pool.query('DELETE FROM seqflow_events');
      await pool.query(`INSERT INTO seqflow_events SELECT * FROM json_populate_recordset(NULL::seqflow_events, $1)`, [JSON.stringify(saved)]);
      await pool.query(`UPDATE seqflow_streams s SET revision = h.revision, head_hash = h.head_hash FROM json_populate_recordset(NULL::seqflow_streams, $1) h WHERE s.stream_id = h.stream_id`, [JSON.stringify(heads)]);
    }
    expect((await verifyLog(t.runtime.eventStore)).problem).toBeNull();
  };

  beforeAll(async () => {
    t = await createTestRuntime('hash_chain');
    pool = new pg.Pool({ connectionString: t.database.url });
    pool.on('error', () => undefined); // dropping the database at the end terminates idle connections: not news
    const deps = t.runtime.commands;
    const org = await createOrganization(deps, { slug: 'acme', name: 'Acme' }, testPrincipal);
    await addMember(deps, { organizationSlug: 'acme', userSubject: 'alice', role: 'owner' }, testPrincipal);
    await addMember(deps, { organizationSlug: 'acme', userSubject: 'bob', role: 'member' }, testPrincipal);
    await createProject(deps, { organizationSlug: 'acme', slug: 'web', name: 'Web' }, testPrincipal);
    const flow = await importFlow(deps, { organizationSlug: 'acme', projectSlug: 'web', file: { slug: 'hello', name: 'Hello', steps: [{ block: { name: 'echo', processor_type: 'passthrough' } }] }, publish: true, production: true }, testPrincipal);
    orgStream = `org-${org.id}`;
    flowStream = `flow-${flow.flowId}`;
  });
  afterAll(async () => {
    await pool?.end();
    await t?.close();
  });

  it('verifies an untouched log, and each stream alone', async () => {
    const whole = await verifyLog(t.runtime.eventStore);
    expect(whole.problem).toBeNull();
    expect(whole.events).toBeGreaterThan(8);
    expect(await verifyLog(t.runtime.eventStore, { streamId: orgStream })).toEqual({ streams: 1, events: 3, problem: null, erasedRuns: { count: 0, runs: [] }, unreadable: { count: 0, events: [] } });
  });

  it('catches a value changed by SQL, naming the event', async () => {
    await tampered(`UPDATE seqflow_events SET data = jsonb_set(data, '{role}', '"owner"') WHERE stream_id = $1 AND stream_revision = 2`, [orgStream], async () => {
      for (const result of [await verifyLog(t.runtime.eventStore), await verifyLog(t.runtime.eventStore, { streamId: orgStream })]) {
        expect(result.problem).toMatchObject({ kind: 'changed', streamId: orgStream, revision: 2 });
      }
    });
  });

  it('catches changed metadata (who did it) as well as data', async () => {
    await tampered(`UPDATE seqflow_events SET metadata = jsonb_set(metadata, '{principal,id}', '"someone-else"') WHERE stream_id = $1 AND stream_revision = 0`, [flowStream], async () => {
      expect((await verifyLog(t.runtime.eventStore)).problem).toMatchObject({ kind: 'changed', streamId: flowStream, revision: 0 });
    });
  });

  it('catches an event deleted from the middle of a stream, and one deleted from its end', async () => {
    await tampered('DELETE FROM seqflow_events WHERE stream_id = $1 AND stream_revision = 1', [orgStream], async () => {
      expect((await verifyLog(t.runtime.eventStore)).problem).toMatchObject({ kind: 'removed', streamId: orgStream, revision: 1 });
    });
    await tampered('DELETE FROM seqflow_events WHERE stream_id = $1 AND stream_revision = 2', [orgStream], async () => {
      expect((await verifyLog(t.runtime.eventStore, { streamId: orgStream })).problem).toMatchObject({ kind: 'removed', streamId: orgStream, revision: 2 });
    });
  });

  it('catches two events swapped (their contents exchanged between revisions)', async () => {
    const swap = `
      UPDATE seqflow_events e SET data = o.data, metadata = o.metadata, event_type = o.event_type
      FROM (SELECT stream_revision, data, metadata, event_type FROM seqflow_events WHERE stream_id = $1 AND stream_revision IN (1, 2)) o
      WHERE e.stream_id = $1 AND e.stream_revision IN (1, 2) AND o.stream_revision <> e.stream_revision`;
    await tampered(swap, [orgStream], async () => {
      expect((await verifyLog(t.runtime.eventStore)).problem).toMatchObject({ kind: 'changed', streamId: orgStream, revision: 1 });
    });
  });

  it('catches events reordered within their stream (their revisions swapped)', async () => {
    const swap = `UPDATE seqflow_events SET stream_revision = -1 WHERE stream_id = $1 AND stream_revision = 1;
      UPDATE seqflow_events SET stream_revision = 1 WHERE stream_id = $1 AND stream_revision = 2;
      UPDATE seqflow_events SET stream_revision = 2 WHERE stream_id = $1 AND stream_revision = -1`.replaceAll('$1', `'${orgStream}'`);
    await tampered(swap, [], async () => {
      expect((await verifyLog(t.runtime.eventStore)).problem).toMatchObject({ kind: 'changed', streamId: orgStream, revision: 1 });
      expect((await verifyLog(t.runtime.eventStore, { streamId: orgStream })).problem).toMatchObject({ kind: 'changed', streamId: orgStream, revision: 1 });
    });
  });

  /** SQL that makes two events trade places in the log (their positions exchanged). */
  const tradePlaces = (a: string, b: string) => `CREATE TEMP TABLE swapped AS SELECT ${a} AS a, ${b} AS b;
      UPDATE seqflow_events SET global_position = -1 WHERE global_position = (SELECT a FROM swapped);
      UPDATE seqflow_events SET global_position = (SELECT a FROM swapped) WHERE global_position = (SELECT b FROM swapped);
      UPDATE seqflow_events SET global_position = (SELECT b FROM swapped) WHERE global_position = -1;
      DROP TABLE swapped`;
  const positionOf = (stream: string, revision: number) => `(SELECT global_position FROM seqflow_events WHERE stream_id = '${stream}' AND stream_revision = ${revision})`;

  it('catches events of two streams that traded places in the log, naming the one found out of place', async () => {
    await tampered(tradePlaces(positionOf(orgStream, 1), positionOf(flowStream, 0)), [], async () => {
      expect((await verifyLog(t.runtime.eventStore)).problem).toMatchObject({ kind: 'reordered', detail: expect.stringContaining('its place in the log was changed') });
    });
  });

  it('catches the log\'s last event traded with an earlier one at once, never waiting it out as an open transaction', async () => {
    await tampered(tradePlaces('(SELECT max(global_position) FROM seqflow_events)', positionOf(orgStream, 1)), [], async () => {
      const { problem } = await verifyLog(t.runtime.eventStore);
      expect(problem).toMatchObject({ kind: 'reordered', detail: expect.stringContaining('its place in the log was changed') });
      expect(problem!.detail).not.toContain('transaction');
    });
  });

  it('verifies a stream whose racing writers committed revisions out of log order', async () => {
    const stream = `race-${randomUUID()}`;
    await Promise.all(Array.from({ length: 16 }, (_, i) => t.runtime.eventStore.append(stream, [{ id: randomUUID(), type: 'Racer', schemaVersion: 1, data: { i }, metadata: metadata() as never }], 'any')));
    expect(await verifyLog(t.runtime.eventStore, { streamId: stream })).toMatchObject({ events: 16, problem: null });
    expect((await verifyLog(t.runtime.eventStore)).problem).toBeNull();
  });

  it('`seqflow audit verify-log` exits 0 on an untouched log and 1 naming the first tampered event', async () => {
    const env = { DATABASE_URL: t.database.url, SEQFLOW_MASTER_KEY: t.runtime.masterKey.toString('base64'), LOG_LEVEL: 'warn' };
    const clean = await runCli(['audit', 'verify-log'], env);
    expect(clean.code).toBe(0);
    expect(JSON.parse(clean.stdout)).toMatchObject({ ok: true, problem: null });
    await tampered(`UPDATE seqflow_events SET data = jsonb_set(data, '{name}', '"Evil"') WHERE stream_id = $1 AND stream_revision = 0`, [orgStream], async () => {
      const caught = await runCli(['audit', 'verify-log'], env);
      expect(caught.code).toBe(1);
      expect(caught.stderr).toContain(`the log was tampered with: event changed in ${orgStream} at revision 0`);
      expect(JSON.parse(caught.stdout)).toMatchObject({ ok: false, problem: { kind: 'changed', streamId: orgStream, revision: 0 } });
    });
  });
});

describe('the hash-chain migration', () => {
  let database: TestDatabase;
  let pool: pg.Pool;
  afterAll(async () => {
    await pool?.end();
    await database?.drop();
  });

  it('hashes the events written before it, and appends after it continue each chain', async () => {
    database = await createTestDatabase('hash_backfill');
    pool = new pg.Pool({ connectionString: database.url });
    pool.on('error', () => undefined);
    const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: { connect: () => pool.connect(), end: async () => undefined } as unknown as pg.Pool }) });
    const migrator = new Migrator({ db, provider: { getMigrations: async () => ({ '0001_event_log': eventLog0001, '0002_hash_chain': eventLog0002 }) }, migrationTableName: 'seqflow_eventlog_migration', migrationLockTableName: 'seqflow_eventlog_migration_lock' });
    expect((await migrator.migrateTo('0001_event_log')).error).toBeUndefined();
    // Events written by the version before the chain (its seqflow_append takes no hashes).
    for (const [stream, count] of [['alpha', 3], ['beta', 2], ['alpha', 2]] as const) {
      const ids = Array.from({ length: count }, () => randomUUID());
      await pool.query('SELECT * FROM seqflow_append($1, -2, $2::uuid[], $3::text[], $4::integer[], $5::jsonb[], $6::jsonb[])', [
        stream, ids, ids.map(() => 'Old'), ids.map(() => 1), ids.map((_, i) => JSON.stringify({ i, note: 'before the chain' })), ids.map(() => JSON.stringify(metadata())),
      ]);
    }
    const store = createPostgresEventStore({ pool, connectionString: database.url });
    await store.migrate();
    expect(await verifyLog(store)).toEqual({ streams: 2, events: 7, problem: null, erasedRuns: { count: 0, runs: [] }, unreadable: { count: 0, events: [] } });
    await store.append('alpha', [{ id: randomUUID(), type: 'New', schemaVersion: 1, data: { after: true }, metadata: metadata() as never }], 4);
    expect(await verifyLog(store)).toEqual({ streams: 2, events: 8, problem: null, erasedRuns: { count: 0, runs: [] }, unreadable: { count: 0, events: [] } });
    await store.close();
    await db.destroy();
  });
});
