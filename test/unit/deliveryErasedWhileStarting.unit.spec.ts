import { trace } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { handleCommand } from '../../src/commands/commandHandler.ts';
import { getWebhookSecret } from '../../src/commands/webhookSecretCommands.ts';
import { organization } from '../../src/domain/organizations/organization.ts';
import { organizationStream } from '../../src/domain/organizations/organizationEvents.ts';
import { delivery } from '../../src/domain/webhooks/delivery.ts';
import { deliveryStream } from '../../src/domain/webhooks/deliveryEvents.ts';
import type { EventStore } from '../../src/eventstore/eventStore.ts';
import { sealingEventStore } from '../../src/eventstore/sealingEventStore.ts';
import type { AddressGuard } from '../../src/outbound/addressGuard.ts';
import { attemptDelivery } from '../../src/workers/deliveryAttempt.ts';
import { createMemoryEventStore } from '../simulation/memoryEventStore.ts';
import { seededRandom } from '../simulation/seededRandom.ts';
import { simulatedKeyTable } from '../simulation/simulatedKeyTable.ts';

const MASTER_KEY = Buffer.alloc(32, 7);
const setup = { principal: { kind: 'system' as const, id: 'test' } };

/**
 * Found by the delivery simulation once retries waited on its clock (seed 188): an attempt opens the
 * body, then records its start; when that append waits out the retry policy's backoff (a lost
 * connection), an erasure can finish in between. The body read before it must not be POSTed.
 */
describe('a delivery whose run is erased while its attempt start is being recorded', () => {
  it('is not POSTed: the run is looked at again after the start, and the delivery ends data_erased', async () => {
    const log = createMemoryEventStore();
    const keyTable = simulatedKeyTable(seededRandom(1));
    const deliveryId = 'delivery-erased-while-starting';
    let refusedOnce = false;
    // The first append of the delivery's attempt loses its connection before it commits.
    const losingOnce: EventStore = {
      ...log,
      async append(streamId, events, expected, options) {
        if (streamId === deliveryStream(deliveryId) && events[0]?.type === 'DeliveryAttemptStarted' && !refusedOnce) {
          refusedOnce = true;
          throw Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' });
        }
        return log.append(streamId, events, expected, options);
      },
    };
    const eventStore = sealingEventStore(losingOnce, keyTable.forProcess({ readFault: 0, alive: () => true }));
    const erasedDuringBackoff: number[] = [];
    const commands = {
      eventStore,
      now: () => new Date('2026-01-01T00:00:00.000Z'),
      // The erasure finishes while the append waits its backoff.
      retryWaits: { random: () => 0.5, sleep: async (ms: number) => void (erasedDuringBackoff.push(ms), keyTable.erase(deliveryId)) },
    };
    await handleCommand(commands, organizationStream('acme'), organization, { type: 'CreateOrganization', data: { organizationId: 'acme', slug: 'acme', name: 'Acme', initialCredits: 0 } }, setup);
    await getWebhookSecret(commands, 'acme', MASTER_KEY, setup);
    const body = JSON.stringify({ event: 'flow.completed', execution_id: deliveryId, output: 'carol@example.com' });
    await handleCommand(commands, deliveryStream(deliveryId), delivery, { type: 'CreateDelivery', event: { type: 'DeliveryCreated', data: { deliveryId, organizationId: 'acme', executionId: deliveryId, flowId: 'flow', event: 'flow.completed', url: 'https://receiver.example/hook', body, truncated: false } } }, setup);

    const posts: string[] = [];
    const guard = { fetch: async (_url: string, init?: RequestInit) => (posts.push(String(init?.body)), new Response('ok')) } as unknown as AddressGuard;
    const attempted = await attemptDelivery({ commands, guard, masterKey: MASTER_KEY, principal: { kind: 'system', id: 'webhook-dispatcher:test' }, timeoutMs: 5_000, tracer: trace.getTracer('test') }, deliveryId);

    expect(erasedDuringBackoff).toHaveLength(1);
    expect(posts).toEqual([]);
    expect(attempted).toBeUndefined();
    const events = await log.readStream(deliveryStream(deliveryId));
    expect(events.map((e) => e.type)).toEqual(['DeliveryCreated', 'DeliveryAttemptStarted', 'DeliveryEnded']);
    expect(events.at(-1)?.data).toMatchObject({ reason: 'data_erased' });
  });
});
