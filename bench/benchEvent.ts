import { randomBytes, randomUUID } from 'node:crypto';
import type { EventToAppend } from '../src/eventstore/eventStore.ts';

/** One small event for the append benches: a fresh id, 16 random bytes of data, system metadata. */
export const benchEvent = (type = 'BenchEvent'): EventToAppend => ({
  id: randomUUID(),
  type,
  schemaVersion: 1,
  data: { value: randomBytes(16).toString('hex'), n: 42 },
  metadata: { correlationId: randomUUID(), causationId: null, principal: { kind: 'system', id: 'bench' }, occurredAt: new Date().toISOString() },
});
