import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishVersion } from '../../src/commands/flowCommands.ts';
import { runCli } from '../support/runProcess.ts';
import { createTestDatabase, type TestDatabase } from '../support/testDatabase.ts';
import { createTestRuntime, seedProject, serveApi, type TestRuntime, testPrincipal } from '../support/testRuntime.ts';

/**
 * Transactions that are none of the log's business, left open on the same PostgreSQL server for the
 * whole file: one in another database, one in the service's own database (an idle `psql` that
 * wrote). Keys revoked, versions promoted, secrets rotated and runs made by another process (the
 * CLI) and by the API all reach the read models and the serving process's caches as usual.
 */
describe('write transactions of strangers held open on the same server', () => {
  let t: TestRuntime;
  let app: FastifyInstance;
  let base: string;
  let key: string;
  let other: TestDatabase;
  let strangers: pg.Client[];
  let cliEnv: Record<string, string>;

  const cli = async (...args: string[]) => {
    const result = await runCli(args, cliEnv);
    expect(result.stderr).not.toContain('PROJECTION_TIMEOUT');
    expect(result.code).toBe(0);
    return JSON.parse(result.stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
  };
  const call = async (path: string, apiKey = key, body?: unknown) => {
    const response = await fetch(`${base}/seq/acme/web/${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> & { detail?: { code: string } } };
  };
  /** Asks until `done` holds (at most ~10 s: the usual lag is milliseconds); answers the last answer. */
  const eventually = async <T>(ask: () => Promise<T>, done: (answer: T) => boolean): Promise<T> => {
    let answer = await ask();
    for (let i = 0; i < 200 && !done(answer); i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      answer = await ask();
    }
    return answer;
  };

  beforeAll(async () => {
    t = await createTestRuntime('strangers');
    key = await seedProject(t.runtime, { echo: [{ block: { name: 'echo', processor_type: 'passthrough' } }] });
    await t.runtime.projections.catchUp();
    await t.runtime.projections.start();
    ({ app, base } = await serveApi(t.runtime));
    cliEnv = { DATABASE_URL: t.database.url, SEQFLOW_MASTER_KEY: t.runtime.masterKey.toString('base64'), LOG_LEVEL: 'warn' };

    other = await createTestDatabase('strangers_elsewhere');
    strangers = [new pg.Client({ connectionString: other.url }), new pg.Client({ connectionString: t.database.url })];
    for (const stranger of strangers) {
      await stranger.connect();
      await stranger.query('BEGIN');
      await stranger.query('SELECT pg_current_xact_id()');
    }
  });
  afterAll(async () => {
    for (const stranger of strangers ?? []) await stranger.end();
    await other?.drop();
    await app?.close();
    await t?.close();
  });

  it('a key revoked by the CLI is refused by the serving process', async () => {
    const created = await cli('apikey', 'create', '--org', 'acme', '--project', 'web', '--env', 'test');
    const fresh = created.key as string;
    expect((await call('echo/execute', fresh, { message: 'hi' })).status).toBe(200);
    expect(await cli('apikey', 'revoke', '--key-id', created.keyId as string)).toEqual({ keyId: created.keyId, revoked: true });
    const refused = await eventually(() => call('echo/execute', fresh, { message: 'hi' }), (answer) => answer.status === 401);
    expect(refused).toMatchObject({ status: 401, body: { detail: { code: 'API_KEY_REVOKED' } } });
  });

  it('a version promoted by the CLI is what the slug runs', async () => {
    const flow = await call('echo');
    await publishVersion(t.runtime.commands, { flowId: flow.body.flowId as string, note: null }, testPrincipal);
    expect(await cli('flow', 'promote', '--org', 'acme', '--project', 'web', '--flow', 'echo', '--version', '2')).toMatchObject({ number: 2 });
    const shown = await eventually(() => call('echo'), (answer) => (answer.body.productionVersion as { number: number }).number === 2);
    expect(shown.body.productionVersion).toMatchObject({ number: 2 });
  });

  it('a signing secret rotated by the CLI is the one the organization signs with', async () => {
    const first = await cli('webhooks', 'secret', '--org', 'acme');
    const rotated = await cli('webhooks', 'secret', '--org', 'acme', '--rotate');
    expect(rotated).toMatchObject({ version: (first.version as number) + 1, previousSecret: first.secret });
    const version = async () => {
      const { state } = await t.runtime.organizations.load(rotated.organizationId as string);
      return state.status === 'created' ? state.webhookSecret?.version : undefined;
    };
    expect(await eventually(version, (seen) => seen === rotated.version)).toBe(rotated.version);
  });

  it('a run made through the API is listed by the read models', async () => {
    const run = await call('echo/execute', key, { message: 'listed?' });
    expect(run.status).toBe(200);
    // Listed once the read model has its end (its start may be projected a moment before).
    const listed = await eventually(() => call('echo/runs'), (answer) => (answer.body.items as { executionId: string; status: string }[]).some((item) => item.executionId === run.body.executionId && item.status === 'completed'));
    expect(listed.body.items).toContainEqual(expect.objectContaining({ executionId: run.body.executionId, status: 'completed', versionNumber: 2 }));
  });

  it('while both strangers still hold their transactions open', async () => {
    for (const stranger of strangers) {
      const { rows } = await stranger.query<{ open: string | null }>('SELECT pg_current_xact_id_if_assigned()::text AS open');
      expect(rows[0]!.open).not.toBeNull();
    }
  });
});
