import { randomBytes, randomUUID } from 'node:crypto';
import { STREAM_DOES_NOT_EXIST, type ExpectedStreamVersion } from '@event-driven-io/emmett';
import { getPostgreSQLEventStore } from '@event-driven-io/emmett-postgresql';

/**
 * The peer for single-event appends: Emmett's PostgreSQL event store on the same server, the same
 * load as ours (`writers` writers, each appending one event at a time to a stream of its own, with
 * its expected version), in a database of its own. Appends per second.
 */
export async function emmettAppends(databaseUrl: string, writers: number, perWriter: number) {
  const store = getPostgreSQLEventStore(databaseUrl);
  try {
    await store.schema.migrate();
    const started = performance.now();
    await Promise.all(
      Array.from({ length: writers }, async () => {
        const stream = `bench-${randomUUID()}`;
        let expected: ExpectedStreamVersion<bigint> = STREAM_DOES_NOT_EXIST;
        for (let i = 0; i < perWriter; i++) {
          const result: { nextExpectedStreamVersion: bigint } = await store.appendToStream(stream, [{ type: 'BenchEvent', data: { value: randomBytes(16).toString('hex'), n: 42 } }], { expectedStreamVersion: expected });
          expected = result.nextExpectedStreamVersion;
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    return { appendsPerSecond: Math.round((writers * perWriter) / seconds) };
  } finally {
    await store.close();
  }
}
