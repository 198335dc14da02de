import { createKurrentDbEventStore } from '../../src/eventstore/kurrentdb/kurrentDbEventStore.ts';
import { eventStoreContract } from './eventStoreContract.ts';

// Runs when a KurrentDB server is configured (docker-compose.yml starts one); reported as skipped otherwise.
const connectionString = process.env.KURRENTDB_CONNECTION_STRING;

eventStoreContract(
  'KurrentDB',
  connectionString
    ? async () => {
        const store = createKurrentDbEventStore(connectionString);
        return { store, teardown: () => store.close() };
      }
    : undefined,
);
