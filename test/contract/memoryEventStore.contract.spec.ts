import { createMemoryEventStore } from '../simulation/memoryEventStore.ts';
import { eventStoreContract } from './eventStoreContract.ts';

// The simulation's log keeps the same contract as the adapters a deployment runs on.
eventStoreContract('in memory (the deterministic simulation)', async () => ({ store: createMemoryEventStore(), teardown: async () => undefined }));
