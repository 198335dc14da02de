import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { liveEvents } from '../../src/caches/liveEvents.ts';
import { createOrganization } from '../../src/commands/organizationCommands.ts';
import { createTestRuntime, type TestRuntime, testPrincipal } from '../support/testRuntime.ts';
import { until } from '../support/until.ts';

/**
 * The console refetches its listings when a live event comes. An event sent before the read models
 * held it made the page read a listing without it, and no later event came to fix that: events are
 * sent once the read models are at their position.
 */
describe('live events for a page that reads the read models', () => {
  let t: TestRuntime;
  beforeAll(async () => {
    t = await createTestRuntime('live_read_models');
  });
  afterAll(async () => {
    await t?.close();
  });

  it('sends an event only once the read models hold it', async () => {
    const happened: string[] = [];
    let release: () => void = () => undefined;
    const caughtUp = new Promise<void>((resolve) => (release = resolve));
    const abort = new AbortController();
    const readModelsAt = async (position: number) => {
      happened.push(`asked for ${position}`);
      await caughtUp;
      happened.push(`read models at ${position}`);
    };
    const stream = liveEvents({ eventStore: t.runtime.eventStore, db: t.runtime.db, readModelsAt }, await t.runtime.eventStore.headPosition(), {}, abort.signal);
    const first = stream.next().then((result) => {
      if (!result.done) happened.push(`sent ${result.value.position}`);
    });
    const created = await createOrganization(t.runtime.commands, { slug: 'live', name: 'Live' }, testPrincipal);
    await until(() => happened.length > 0, 'the stream to ask where the read models are');
    release();
    await first;
    abort.abort();
    await stream.return(undefined);
    // The batch's last position is asked for, and reached, before its first event is sent.
    const asked = Number(happened[0]!.replace('asked for ', ''));
    expect(asked).toBeGreaterThan(0);
    expect(asked).toBeLessThanOrEqual(created.position);
    expect(happened).toEqual([`asked for ${asked}`, `read models at ${asked}`, expect.stringMatching(/^sent \d+$/)]);
    expect(Number(happened[2]!.replace('sent ', ''))).toBeLessThanOrEqual(asked);
  });
});
