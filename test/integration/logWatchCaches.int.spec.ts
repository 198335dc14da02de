import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKeyAuthenticator } from '../../src/api/auth/apiKeyAuthenticator.ts';
import type { CommandDependencies } from '../../src/commands/commandHandler.ts';
import { createApiKey, revokeApiKey } from '../../src/commands/apiKeyCommands.ts';
import { importFlow, publishVersion, setProductionVersion } from '../../src/commands/flowCommands.ts';
import { createOrganization } from '../../src/commands/organizationCommands.ts';
import { createProject } from '../../src/commands/projectCommands.ts';
import { rotateWebhookSecret, signingSecrets } from '../../src/commands/webhookSecretCommands.ts';
import { createPostgresEventStore } from '../../src/eventstore/postgres/postgresEventStore.ts';
import { createLogWatch, type LogChange } from '../../src/caches/logWatch.ts';
import { createSupervisor } from '../../src/supervision/supervisor.ts';
import { createTestRuntime, type TestRuntime, testPrincipal } from '../support/testRuntime.ts';

const flowFile = { slug: 'hello', name: 'Hello', steps: [{ block: { name: 'a', processor_type: 'passthrough' } }] };
const slugs = { org: 'acme', project: 'web', flow: 'hello' };

describe('caches invalidated from the log: API keys, the version a slug runs, organizations', () => {
  let t: TestRuntime;
  /** Commands of another process on the same database (a CLI, another API process): not told in process. */
  let elsewhere: CommandDependencies;
  let elsewherePool: pg.Pool;
  let closeElsewhere: () => Promise<void>;
  let organizationId: string;
  let projectId: string;
  let flowId: string;
  let authenticate: ReturnType<typeof createApiKeyAuthenticator>;
  let keyStreamReads = 0;
  let organizationStreamReads = 0;

  /** Resolves when the runtime's log watch has told `times` changes it `wants` (watchers are told in the order they were added, so the caches have heard first). */
  const told = (wants: (change: LogChange) => boolean, times = 1) =>
    new Promise<LogChange>((resolve) => {
      let count = 0;
      const stop = t.runtime.logWatch.watch({
        wants,
        changed: (change) => {
          if (++count < times) return;
          stop();
          resolve(change);
        },
        reset: () => undefined,
      });
    });
  /** ... of this type about this id (a key, or the version a switch points at). */
  const toldOf = (type: string, id: string, times = 1) =>
    told((change) => change.type === type && [(change.data as { keyId?: string }).keyId, (change.data as { versionId?: string }).versionId].includes(id), times);

  const watchGoesLive = async () => {
    t.runtime.logWatch.start();
    for (let i = 0; i < 500 && !t.runtime.logWatch.live; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(t.runtime.logWatch.live).toBe(true);
  };

  beforeAll(async () => {
    t = await createTestRuntime('logwatch');
    const deps = t.runtime.commands;
    organizationId = (await createOrganization(deps, { slug: 'acme', name: 'Acme' }, testPrincipal)).id;
    projectId = (await createProject(deps, { organizationSlug: 'acme', slug: 'web', name: 'Web' }, testPrincipal)).id;
    flowId = (await importFlow(deps, { organizationSlug: 'acme', projectSlug: 'web', file: flowFile, production: true }, testPrincipal)).flowId;
    await t.runtime.projections.catchUp();
    await t.runtime.projections.start();

    elsewherePool = new pg.Pool({ connectionString: t.database.url });
    const store = createPostgresEventStore({ pool: elsewherePool, connectionString: t.database.url });
    elsewhere = { ...deps, eventStore: store };
    closeElsewhere = async () => {
      await store.close();
      await elsewherePool.end();
    };

    const readStream = t.runtime.eventStore.readStream;
    t.runtime.eventStore.readStream = (streamId, options) => {
      if (streamId.startsWith('apikey-')) keyStreamReads++;
      if (streamId === `org-${organizationId}`) organizationStreamReads++;
      return readStream(streamId, options);
    };
    authenticate = createApiKeyAuthenticator(t.runtime.db, t.runtime.eventStore, t.runtime.logWatch);
    await watchGoesLive();
  });
  afterAll(async () => {
    authenticate?.close();
    await closeElsewhere?.();
    await t?.close();
  });

  it('checks a key against its stream once, then trusts the log watch while it runs', async () => {
    const { key } = await createApiKey(t.runtime.commands, { organizationSlug: 'acme', projectSlug: 'web', environment: 'live' }, testPrincipal);
    await authenticate(`Bearer ${key}`);
    const after = keyStreamReads;
    for (let i = 0; i < 5; i++) expect((await authenticate(`Bearer ${key}`)).projectId).toBe(projectId);
    expect(keyStreamReads).toBe(after);
  });

  it('refuses a key this process revoked from the moment the revocation is written', async () => {
    const { key, keyId } = await createApiKey(t.runtime.commands, { organizationSlug: 'acme', projectSlug: 'web', environment: 'live' }, testPrincipal);
    await authenticate(`Bearer ${key}`);
    await revokeApiKey(t.runtime.commands, { keyId }, testPrincipal);
    await expect(authenticate(`Bearer ${key}`)).rejects.toMatchObject({ code: 'API_KEY_REVOKED' });
  });

  it('refuses a key another process revoked once the log watch has read the revocation', async () => {
    const { key, keyId } = await createApiKey(t.runtime.commands, { organizationSlug: 'acme', projectSlug: 'web', environment: 'live' }, testPrincipal);
    await authenticate(`Bearer ${key}`);
    const revocationSeen = toldOf('ApiKeyRevoked', keyId);
    await revokeApiKey(elsewhere, { keyId }, testPrincipal);
    expect(((await revocationSeen).data as { keyId: string }).keyId).toBe(keyId);
    await expect(authenticate(`Bearer ${key}`)).rejects.toMatchObject({ code: 'API_KEY_REVOKED' });
  });

  it('reads the revocation on every call while the log watch is stopped, and trusts nothing it held before', async () => {
    const { key, keyId } = await createApiKey(t.runtime.commands, { organizationSlug: 'acme', projectSlug: 'web', environment: 'live' }, testPrincipal);
    await authenticate(`Bearer ${key}`);
    await t.runtime.logWatch.stop();
    try {
      expect(t.runtime.logWatch.live).toBe(false);
      await revokeApiKey(elsewhere, { keyId }, testPrincipal);
      await expect(authenticate(`Bearer ${key}`)).rejects.toMatchObject({ code: 'API_KEY_REVOKED' });
    } finally {
      await watchGoesLive();
    }
  });

  it('stops trusting what it holds once the watch has not been current for longer than its bound (a stuck handler), and reads the revocation', async () => {
    // A watch of its own, on a clock the test moves, whose handler can be made to hang.
    let clock = 0;
    let release!: () => void;
    let hang: Promise<void> | undefined;
    const stuckStore = {
      ...t.runtime.eventStore,
      subscribe: (options: Parameters<typeof t.runtime.eventStore.subscribe>[0]) =>
        t.runtime.eventStore.subscribe({ ...options, handler: async (events) => {
          await hang;
          return options.handler(events);
        } }),
    };
    const supervisor = createSupervisor({ logger: t.runtime.logger, initialDelayMs: 50 });
    const watch = createLogWatch({ eventStore: stuckStore, supervisor, maxLagMs: 1000, now: () => clock });
    const ownAuthenticate = createApiKeyAuthenticator(t.runtime.db, t.runtime.eventStore, watch);
    watch.start();
    try {
      for (let i = 0; i < 500 && !watch.live; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(watch.live).toBe(true);
      const { key, keyId } = await createApiKey(t.runtime.commands, { organizationSlug: 'acme', projectSlug: 'web', environment: 'live' }, testPrincipal);
      await ownAuthenticate(`Bearer ${key}`);
      const reads = keyStreamReads;
      await ownAuthenticate(`Bearer ${key}`);
      expect(keyStreamReads).toBe(reads);

      hang = new Promise<void>((resolve) => (release = resolve));
      await revokeApiKey(elsewhere, { keyId }, testPrincipal);
      clock += 1001;
      expect(watch.live).toBe(false);
      await expect(ownAuthenticate(`Bearer ${key}`)).rejects.toMatchObject({ code: 'API_KEY_REVOKED' });
    } finally {
      release?.();
      ownAuthenticate.close();
      await watch.stop();
    }
  });

  it('runs the version another process set as production, once the watch and the read model have it', async () => {
    expect((await t.runtime.flows.findExecutableFlow(slugs, projectId)).versionNumber).toBe(1);
    const v2 = await publishVersion(elsewhere, { flowId, note: null }, testPrincipal);
    const switchSeen = toldOf('FlowProductionVersionSet', v2.versionId);
    const switched = await setProductionVersion(elsewhere, { flowId, versionId: v2.versionId }, testPrincipal);
    await switchSeen;
    await t.runtime.projections.waitForPosition(switched.position);
    expect((await t.runtime.flows.findExecutableFlow(slugs, projectId)).versionNumber).toBe(2);
  });

  it('does not keep what the read model answered while it had not reached a production switch', async () => {
    const v3 = await publishVersion(t.runtime.commands, { flowId, note: null }, testPrincipal);
    await t.runtime.projections.stop();
    let switched: { position: number };
    try {
      // Told twice: at once (this process wrote it), then as the watch reads it from the log.
      const toldFromLog = toldOf('FlowProductionVersionSet', v3.versionId, 2);
      switched = await setProductionVersion(t.runtime.commands, { flowId, versionId: v3.versionId }, testPrincipal);
      await toldFromLog;
      // The read model still names version 2: that is what it answers, and it must not be kept.
      expect((await t.runtime.flows.findExecutableFlow(slugs, projectId)).versionNumber).toBe(2);
    } finally {
      await t.runtime.projections.start();
    }
    await t.runtime.projections.waitForPosition(switched.position);
    expect((await t.runtime.flows.findExecutableFlow(slugs, projectId)).versionNumber).toBe(3);
  });

  it('reports a flow of another project exactly like a missing one, cached or not', async () => {
    await t.runtime.flows.findExecutableFlow(slugs, projectId);
    await expect(t.runtime.flows.findExecutableFlow(slugs, 'another-project')).rejects.toMatchObject({ code: 'FLOW_NOT_FOUND' });
    await expect(t.runtime.flows.findExecutableFlow({ ...slugs, flow: 'nope' }, projectId)).rejects.toMatchObject({ code: 'FLOW_NOT_FOUND' });
  });

  it('reads an organization once while the watch runs, and again after another process changed it', async () => {
    const { organizations } = t.runtime;
    const issued = (times: number) => told((change) => change.type === 'WebhookSecretIssued' && change.streamId === `org-${organizationId}`, times);
    // The first fetch issues the secret: told at once, then again as the watch reads it from the log.
    const issuedSeenInLog = issued(2);
    const first = await signingSecrets(t.runtime.commands, organizationId, t.runtime.masterKey, testPrincipal, await organizations.load(organizationId));
    await issuedSeenInLog;
    await organizations.load(organizationId);
    const reads = organizationStreamReads;
    for (let i = 0; i < 3; i++) {
      const again = await signingSecrets(t.runtime.commands, organizationId, t.runtime.masterKey, testPrincipal, await organizations.load(organizationId));
      expect(again.current).toBe(first.current);
    }
    expect(organizationStreamReads).toBe(reads);

    const rotationSeen = issued(1);
    const rotated = await rotateWebhookSecret(elsewhere, organizationId, t.runtime.masterKey, 0, testPrincipal);
    await rotationSeen;
    const after = await signingSecrets(t.runtime.commands, organizationId, t.runtime.masterKey, testPrincipal, await organizations.load(organizationId));
    expect(after.current).toBe(rotated.newSecret);
    expect(after.versions).toEqual([rotated.version]);
  });
});
