import { createServer, type Server } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../lib/index.mjs';
import { createApiKey } from '../../src/commands/apiKeyCommands.ts';
import { importFlow } from '../../src/commands/flowCommands.ts';
import { createOrganization } from '../../src/commands/organizationCommands.ts';
import { createProject } from '../../src/commands/projectCommands.ts';
import { signingSecrets } from '../../src/commands/webhookSecretCommands.ts';
import { startWorkers } from '../../src/runtime/workerRole.ts';
import { createTestRuntime, serveApi, type TestRuntime, testPrincipal } from '../support/testRuntime.ts';
import { until } from '../support/until.ts';

/** Testing webhooks on a laptop: with SEQFLOW_DEV_HTTP_CALLBACKS, a plain-http receiver inside the allowed ranges. */
describe('webhooks to a plain-http receiver during development', () => {
  let t: TestRuntime;
  let app: FastifyInstance;
  let base: string;
  let key: string;
  let orgId: string;
  let workers: { stop(): Promise<void> };
  let receiver: Server;
  let receiverUrl: string;
  const received: { headers: Record<string, string>; body: string }[] = [];

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        received.push({ headers: req.headers as Record<string, string>, body });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
    t = await createTestRuntime('local_webhooks', { SEQFLOW_DEV_HTTP_CALLBACKS: 'true', SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8' });
    orgId = (await createOrganization(t.runtime.commands, { slug: 'acme', name: 'Acme' }, testPrincipal)).id;
    await createProject(t.runtime.commands, { organizationSlug: 'acme', slug: 'web', name: 'Web' }, testPrincipal);
    await importFlow(t.runtime.commands, { organizationSlug: 'acme', projectSlug: 'web', file: { slug: 'echo', name: 'Echo', steps: [{ block: { name: 'echo', processor_type: 'passthrough' } }] }, production: true }, testPrincipal);
    key = (await createApiKey(t.runtime.commands, { organizationSlug: 'acme', projectSlug: 'web', environment: 'test' }, testPrincipal)).key;
    await t.runtime.projections.catchUp();
    workers = await startWorkers(t.runtime);
    ({ app, base } = await serveApi(t.runtime));
  });
  afterAll(async () => {
    await workers?.stop();
    await app?.close();
    await t?.close();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  const submit = (callbackUrl: string) =>
    fetch(`${base}/seq/acme/web/echo/jobs`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ message: 'hi', callbackUrl }) });

  it('delivers, signed, to http on an allowed address', async () => {
    const accepted = await submit(receiverUrl);
    expect(accepted.status).toBe(202);
    const { executionId } = (await accepted.json()) as { executionId: string };
    const ofRun = () => received.find((r) => (JSON.parse(r.body) as { executionId: string }).executionId === executionId);
    await until(() => ofRun() !== undefined, 'the delivery over http');
    const delivery = ofRun()!;
    const secrets = (await signingSecrets(t.runtime.commands, orgId, t.runtime.masterKey, testPrincipal))!;
    expect(verifyWebhook(delivery.body, delivery.headers, [secrets.current])).toMatchObject({ ok: true });
  });

  it('still refuses http to any other address, saying which ranges qualify', async () => {
    const refused = await submit('http://93.184.216.34/hook');
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ detail: { code: 'CALLBACK_URL_INVALID', message: expect.stringContaining('SEQFLOW_OUTBOUND_ALLOW_CIDRS') } });
  });
});
