import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handleCommand } from '../../src/commands/commandHandler.ts';
import { getWebhookSecret } from '../../src/commands/webhookSecretCommands.ts';
import { delivery } from '../../src/domain/webhooks/delivery.ts';
import { deliveryStream } from '../../src/domain/webhooks/deliveryEvents.ts';
import { startWorkers } from '../../src/runtime/workerRole.ts';
import { type HttpsReceiver, startHttpsReceiver } from '../support/httpsReceiver.ts';
import { createTestRuntime, seedProject, type TestRuntime, testPrincipal } from '../support/testRuntime.ts';
import { until } from '../support/until.ts';

/**
 * One worker with 4 delivery slots, at most 2 to one receiver host: a receiver that holds every
 * request it gets, with a backlog of 6, and a second receiver that answers at once.
 */
describe('deliveries per receiver host', () => {
  let t: TestRuntime;
  let slow: HttpsReceiver;
  let fast: HttpsReceiver;
  const held: ServerResponse[] = [];
  let inHand = 0;
  let mostInHand = 0;

  beforeAll(async () => {
    slow = await startHttpsReceiver((_request, res) => {
      inHand++;
      mostInHand = Math.max(mostInHand, inHand);
      res.on('finish', () => inHand--);
      held.push(res);
    });
    fast = await startHttpsReceiver((_request, res) => res.writeHead(204).end());
    // Both receivers' certificates, trusted as one extra CA file.
    const caFile = path.join(mkdtempSync(path.join(tmpdir(), 'seqflow-two-ca-')), 'ca.pem');
    writeFileSync(caFile, readFileSync(slow.caFile, 'utf8') + readFileSync(fast.caFile, 'utf8'));
    t = await createTestRuntime('host_bound', {
      SEQFLOW_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
      SEQFLOW_OUTBOUND_EXTRA_CA_FILE: caFile,
      SEQFLOW_WEBHOOK_CONCURRENCY: '4',
      SEQFLOW_WEBHOOK_HOST_CONCURRENCY: '2',
      SEQFLOW_WEBHOOK_TIMEOUT_MS: '60000',
    });
    await seedProject(t.runtime, { f: [{ block: { name: 'p', processor_type: 'passthrough' } }] });
    await t.runtime.projections.catchUp();
  });
  afterAll(async () => {
    for (const res of held) if (!res.writableEnded) res.writeHead(200).end();
    await slow?.close();
    await fast?.close();
    await t?.close();
  });

  async function createDelivery(organizationId: string, url: string) {
    const deliveryId = randomUUID();
    const body = JSON.stringify({ event: 'flow.completed', deliveryId });
    await handleCommand(t.runtime.commands, deliveryStream(deliveryId), delivery, { type: 'CreateDelivery', event: { type: 'DeliveryCreated', data: { deliveryId, organizationId, executionId: randomUUID(), flowId: 'f', event: 'flow.completed', url, body, truncated: false } } }, testPrincipal);
    return deliveryId;
  }
  const statusOf = async (id: string) => (await t.runtime.db.selectFrom('webhook_deliveries').select('status').where('id', '=', id).executeTakeFirst())?.status;

  it('gives a receiver that holds its requests at most its share of the slots: another receiver is delivered to meanwhile, and the backlog follows as the first answers come', async () => {
    const organization = await t.runtime.db.selectFrom('organizations').select('id').where('slug', '=', 'acme').executeTakeFirstOrThrow();
    await getWebhookSecret(t.runtime.commands, organization.id, t.runtime.masterKey, testPrincipal);
    const backlog: string[] = [];
    for (let i = 0; i < 6; i++) backlog.push(await createDelivery(organization.id, `${slow.url}/hook`));
    await t.runtime.projections.catchUp();
    const workers = await startWorkers(t.runtime);
    try {
      await until(() => held.length === 2, 'the slow receiver to hold two requests');
      const other = await createDelivery(organization.id, `${fast.url}/hook`);
      await until(async () => (await statusOf(other)) === 'succeeded', "the other receiver's delivery to succeed while the slow one holds its two");
      expect(fast.received).toHaveLength(1);
      expect(held).toHaveLength(2);

      // Each answer frees the host's place for the next of its backlog, two at a time, never more.
      let answered = 0;
      while (answered < backlog.length) {
        await until(() => held.length > answered, `the slow receiver to get request ${answered + 1} of its backlog`);
        for (const res of held) {
          if (res.writableEnded) continue;
          res.writeHead(200).end();
          answered++;
        }
      }
      await until(async () => (await Promise.all(backlog.map(statusOf))).every((s) => s === 'succeeded'), 'the whole backlog to succeed');
      expect(slow.received).toHaveLength(6);
      expect(mostInHand).toBe(2);
    } finally {
      await workers.stop();
    }
  }, 120_000);
});
