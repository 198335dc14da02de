import { type DomainEvent, decodeEvent } from '../domain/domainEvent.ts';
import type { RecordedEvent } from './eventStore.ts';

/** A stored event as the domain knows it: validated, upcast from older versions, refused when newer. */
export const decodeRecorded = (recorded: RecordedEvent): DomainEvent => decodeEvent(recorded.type, recorded.schemaVersion, recorded.data);
