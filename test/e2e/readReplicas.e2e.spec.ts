import { randomBytes } from 'node:crypto';
import { createTRPCClient, httpLink } from '@trpc/client';
import type { ConsoleRouter } from '../../src/api/console/consoleRouter.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PrimaryWithStandby, postgresBinaries, startPrimaryWithStandby } from '../support/hotStandby.ts';
import { freePort } from '../support/freePort.ts';
import { runCli, spawnServe } from '../support/runProcess.ts';
import { until } from '../support/until.ts';
import { signalGroup } from '../support/signalGroup.ts';

/**
 * DATABASE_READ_URLS (docs/running.md): polls and listings are read on a real hot standby of the
 * service's PostgreSQL while the primary takes the writes, and a caller still reads its own writes:
 * a job it just started is in its listings at once, whether it sends back the `Seqflow-Position` its
 * write answered (any API process) or not (the process remembers its key's last write). The
 * console's queries are read there too, and an operator sees their own changes at once. When the
 * standby stops, reads go on, on the primary.
 */
const bin = postgresBinaries();

interface Health {
  reads?: { replicas: Array<{ replica: string; state: string; reads: number }>; primaryReads: number; waitedOut: number };
}

describe.skipIf(!bin)('read replicas: a hot standby serves polls and listings, and a caller reads its own writes', () => {
  let cluster: PrimaryWithStandby;
  let served: ReturnType<typeof spawnServe>;
  let api: string;
  let consolePort: number;
  const keys: { writer: string; reader: string } = { writer: '', reader: '' };
  const env = () => ({ DATABASE_URL: cluster.primaryUrl, SEQFLOW_MASTER_KEY: masterKey, SEQFLOW_DATA_DIR: '' });
  const masterKey = randomBytes(32).toString('base64');

  const apiKey = async () => {
    const created = await runCli(['apikey', 'create', '--org', 'demo', '--project', 'demo', '--env', 'live'], env());
    expect(created.code, created.stderr).toBe(0);
    return (JSON.parse(created.stdout.trim().split('\n').at(-1)!) as { key: string }).key;
  };
  const health = async () => (await (await fetch(`http://${api}/api/v1/health`)).json()) as Health;
  const flow = () => `http://${api}/api/v1/seq/demo/demo/hello`;
  const startJob = async (key: string, message: string) => {
    const answer = await fetch(`${flow()}/jobs`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ message }) });
    expect(answer.status).toBe(202);
    return { executionId: ((await answer.json()) as { executionId: string }).executionId, position: answer.headers.get('seqflow-position') };
  };
  // The listing's pages, newest first, up to the one that holds `wanted`: the load's lanes start jobs
  // meanwhile, and on a slow machine more than a page of them may come after the caller's.
  const listed = async (key: string, listing: string, wanted: string, headers: Record<string, string> = {}) => {
    const ids: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 50 && !ids.includes(wanted); page++) {
      const answer = await fetch(`${flow()}/${listing}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { headers: { authorization: `Bearer ${key}`, ...headers } });
      expect(answer.status).toBe(200);
      const body = (await answer.json()) as { items: Array<{ executionId: string }>; nextCursor: string | null };
      ids.push(...body.items.map((item) => item.executionId));
      cursor = body.nextCursor;
      if (!cursor) break;
    }
    return ids;
  };

  beforeAll(async () => {
    cluster = await startPrimaryWithStandby(bin!);
    const port = await freePort();
    api = `127.0.0.1:${port}`;
    consolePort = await freePort();
    // A long wait: on a loaded machine the read models may take a while to show a write; the test is about where reads go, not how fast.
    served = spawnServe({ ...env(), DATABASE_READ_URLS: cluster.standbyUrl, SEQFLOW_READ_WAIT_MS: '20000', SEQFLOW_DEMO: 'true', PORT: String(port), SEQFLOW_CONSOLE_PORT: String(consolePort) });
    await until(async () => (await fetch(`http://${api}/api/v1/health`).catch(() => null))?.ok === true, 'the service to serve', 120_000);
    keys.writer = await apiKey();
    keys.reader = await apiKey();
  }, 240_000);

  afterAll(async () => {
    if (served) {
      signalGroup(served.child, 'SIGTERM');
      await served.exited;
    }
    await cluster?.close();
  }, 120_000);

  it('lists every job its caller just started, read on the standby, while other callers load the primary', async () => {
    let loading = true;
    const load = Promise.all(
      Array.from({ length: 4 }, async (_, lane) => {
        for (let n = 0; loading; n++) await startJob(keys.reader, `load ${lane}-${n}`);
      }),
    );
    try {
      for (let round = 0; round < 12; round++) {
        const job = await startJob(keys.writer, `round ${round}`);
        expect(Number(job.position)).toBeGreaterThan(0);
        // The writer's own key: this process remembers its last write.
        expect(await listed(keys.writer, 'jobs?limit=100', job.executionId)).toContain(job.executionId);
        expect(await listed(keys.writer, 'runs?mode=async&limit=100', job.executionId)).toContain(job.executionId);
        // Another key, which wrote nothing itself here, sending the position the write answered.
        const other = await startJob(keys.writer, `round ${round}, read by another key`);
        expect(await listed(keys.reader, 'jobs?limit=100', other.executionId, { 'seqflow-position': other.position! })).toContain(other.executionId);
        const poll = await fetch(`${flow()}/jobs/${other.executionId}`, { headers: { authorization: `Bearer ${keys.reader}`, 'seqflow-position': other.position! } });
        expect(poll.status).toBe(200);
      }
    } finally {
      loading = false;
      await load;
    }
    const reads = (await health()).reads!;
    expect(reads.replicas).toEqual([expect.objectContaining({ replica: expect.stringMatching(/^127\.0\.0\.1:\d+\/postgres$/), state: 'up' })]);
    expect(reads.replicas[0]!.reads).toBeGreaterThan(0);
  }, 240_000);

  it('refuses a position that is not a number, naming the header', async () => {
    const answer = await fetch(`${flow()}/jobs`, { headers: { authorization: `Bearer ${keys.reader}`, 'seqflow-position': 'yesterday' } });
    expect(answer.status).toBe(422);
    expect(((await answer.json()) as { detail: { code: string; message: string } }).detail).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringContaining('Seqflow-Position') });
  });

  it("serves the console's reads and a backtest's choice of runs on the standby, and an operator reads each change of theirs at once", async () => {
    const link = await runCli(['console', 'link'], { ...env(), SEQFLOW_CONSOLE_PORT: String(consolePort) });
    expect(link.code, link.stderr).toBe(0);
    const token = new URL((JSON.parse(link.stdout.trim().split('\n').at(-1)!) as { url: string }).url).searchParams.get('token');
    const login = await fetch(`http://127.0.0.1:${consolePort}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token }) });
    expect(login.status).toBe(200);
    const operator = createTRPCClient<ConsoleRouter>({ links: [httpLink({ url: `http://127.0.0.1:${consolePort}/internal/trpc`, headers: { cookie: login.headers.get('set-cookie')!.split(';')[0]! } })] });
    const replicaReads = async () => (await health()).reads!.replicas[0]!.reads;

    // Before any change of theirs, a query needs nothing: the standby serves it.
    const before = await replicaReads();
    const demo = (await operator.organizations.list.query()).find((organization) => organization.slug === 'demo')!;
    expect(await replicaReads()).toBeGreaterThan(before);
    // After each change, the next read shows it (on the primary while the standby has not replayed it yet).
    for (let round = 0; round < 5; round++) {
      await operator.retention.set.mutate({ organizationId: demo.organizationId, projectId: null, runDays: 10 + round });
      expect((await operator.retention.get.query({ organizationId: demo.organizationId })).runDays).toBe(10 + round);
    }
    // Once the standby shows the last change, the operator's reads go there again.
    const afterChanges = await replicaReads();
    await until(async () => {
      expect((await operator.retention.get.query({ organizationId: demo.organizationId })).runDays).toBe(14);
      return (await replicaReads()) > afterChanges;
    }, 'a read of the operator on the standby again', 60_000);

    // A backtest's choice of runs is read there too, once the standby shows what this process wrote.
    const flows = await operator.flows.list.query({ projectId: demo.projects.find((project) => project.slug === 'demo')!.projectId });
    const hello = flows.find((flow) => flow.slug === 'hello')!;
    let started: { total: number } | undefined;
    await until(async () => {
      const beforeStart = await replicaReads();
      started = await operator.backtests.start.mutate({ flowId: hello.flowId, target: 1, last: 3 });
      return (await replicaReads()) > beforeStart;
    }, "a backtest's runs chosen on the standby", 60_000);
    expect(started!.total).toBe(3);
  }, 120_000);

  it('goes on reading, on the primary, once the standby has stopped', async () => {
    await cluster.stopStandby();
    const before = (await health()).reads!.primaryReads;
    for (let round = 0; round < 3; round++) {
      const job = await startJob(keys.writer, `after the standby, ${round}`);
      expect(await listed(keys.writer, 'jobs?limit=100', job.executionId)).toContain(job.executionId);
    }
    const reads = (await health()).reads!;
    expect(reads.replicas[0]!.state).toBe('down');
    expect(reads.primaryReads).toBeGreaterThanOrEqual(before + 3);
  }, 120_000);
});
