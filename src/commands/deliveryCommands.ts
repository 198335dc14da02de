import { nameBasedId } from '../domain/nameBasedId.ts';
import { delivery } from '../domain/webhooks/delivery.ts';
import { deliveryStream } from '../domain/webhooks/deliveryEvents.ts';
import { type CommandDependencies, type CommandMetadata, handleCommand } from './commandHandler.ts';

/** The delivery of one run's event has one id, derived from both: a replayed creation finds its own stream. */
export const deliveryIdFor = (executionId: string, event: string): string => nameBasedId(executionId, event);

export async function redeliver(deps: CommandDependencies, deliveryId: string, metadata: CommandMetadata) {
  const result = await handleCommand(deps, deliveryStream(deliveryId), delivery, { type: 'Redeliver', data: { now: deps.now().toISOString() } }, metadata);
  return { deliveryId, status: result.state.status, position: result.position };
}
