import Fastify from 'fastify';
import pg from 'pg';

/**
 * The least a durable request costs: a Fastify route on loopback that commits one INSERT per
 * request, through a pool as large as the service's (20). The execute figures are compared with it.
 */
export async function startInsertRoute(databaseUrl: string) {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 20 });
  await pool.query('CREATE TABLE IF NOT EXISTS bench_requests (id bigserial PRIMARY KEY, body jsonb NOT NULL, received_at timestamptz NOT NULL DEFAULT now())');
  const app = Fastify({ logger: false });
  app.post('/insert', async (request) => {
    const { rows } = await pool.query<{ id: string }>('INSERT INTO bench_requests (body) VALUES ($1) RETURNING id::text', [JSON.stringify(request.body)]);
    return { id: rows[0]!.id };
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    url: `http://127.0.0.1:${(app.server.address() as { port: number }).port}/insert`,
    close: async () => {
      await app.close();
      await pool.end();
    },
  };
}
