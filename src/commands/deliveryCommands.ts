import { createHash } from 'node:crypto';
import { delivery } from '../domain/webhooks/delivery.ts';
import { deliveryStream } from '../domain/webhooks/deliveryEvents.ts';
import { type CommandDependencies, type CommandMetadata, handleCommand } from './commandHandler.ts';

/** The delivery of one run's event has one id, derived from both: a replayed creation finds its own stream. */
export function deliveryIdFor(executionId: string, event: string): string {
  const h = createHash('sha256').update(`${executionId}\u0000${event}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${((parseInt(h.slice(16, 18), 16) & 0x3f) | 0x80).toString(16)}${h.slice(18, 20)}-${h.slice(20, 32)}`;
}

export async function redeliver(deps: CommandDependencies, deliveryId: string, metadata: CommandMetadata) {
  const result = await handleCommand(deps, deliveryStream(deliveryId), delivery, { type: 'Redeliver', data: { now: deps.now().toISOString() } }, metadata);
  return { deliveryId, status: result.state.status, position: result.position };
}
