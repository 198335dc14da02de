import pg from 'pg';
import { createPostgresEventStore } from '../../src/eventstore/postgres/postgresEventStore.ts';
import { createTestDatabase } from '../support/testDatabase.ts';
import { eventStoreContract } from './eventStoreContract.ts';

// The same contract with appends group-committed (the default) and one commit per append.
for (const groupCommit of [true, false]) {
  eventStoreContract(groupCommit ? 'PostgreSQL (group commit)' : 'PostgreSQL (one commit per append)', () => harness(groupCommit));
}

async function harness(groupCommit: boolean) {
  const database = await createTestDatabase(groupCommit ? 'contract' : 'contract_single');
  const pool = new pg.Pool({ connectionString: database.url, max: 20 });
  pool.on('error', () => undefined); // idle connections ended by the database's drop at teardown
  const store = createPostgresEventStore({ pool, connectionString: database.url, groupCommit });
  await store.migrate();
  return {
    store,
    async teardown() {
      await store.close();
      await pool.end();
      await database.drop();
    },
  };
}
