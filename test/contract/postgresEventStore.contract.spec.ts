import pg from 'pg';
import { createPostgresEventStore } from '../../src/eventstore/postgres/postgresEventStore.ts';
import { createTestDatabase } from '../support/testDatabase.ts';
import { eventStoreContract } from './eventStoreContract.ts';

eventStoreContract('PostgreSQL', async () => {
  const database = await createTestDatabase('contract');
  const pool = new pg.Pool({ connectionString: database.url, max: 20 });
  pool.on('error', () => undefined); // idle connections ended by the database's drop at teardown
  const store = createPostgresEventStore({ pool, connectionString: database.url });
  await store.migrate();
  return {
    store,
    async teardown() {
      await store.close();
      await pool.end();
      await database.drop();
    },
  };
});
