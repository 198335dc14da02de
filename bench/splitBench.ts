import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { postgresBinaries, startPrimaryWithStandby } from '../test/support/hotStandby.ts';
import { freePort } from '../test/support/freePort.ts';
import { startPgBouncer } from '../test/support/pgBouncer.ts';
import { measure } from './rolesBench.ts';

const ratio = (a: number, b: number) => Number((a / b).toFixed(2));

/**
 * The whole picture on one machine (issue 41 item 5): two `--role api` and two `--role worker`
 * processes behind PgBouncer (transaction mode; LISTEN and shadow read models on the server itself)
 * with a hot standby serving their polls and listings, against one all-roles process on the same
 * cores. Both on one PostgreSQL cluster of the bench's own (durable, as run; the standby streams from
 * it), each on a database of its own, under the roles bench's load: /execute passthrough at
 * concurrency 32 over the API processes, then 1,000 /jobs to completed.
 */
export async function benchSplit() {
  const bin = postgresBinaries();
  if (!bin) return 'skipped: no PostgreSQL programs under /usr/lib/postgresql (initdb, pg_basebackup)';
  const cluster = await startPrimaryWithStandby(bin, { durable: true });
  const bouncer = await startPgBouncer(cluster.primaryUrl);
  try {
    const database = async (name: string) => {
      const admin = new pg.Client({ connectionString: cluster.primaryUrl });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${name}`).finally(() => admin.end());
      return withDatabase(cluster.primaryUrl, name);
    };
    const one = await measure({ name: 'oneProcess', processes: [{ role: 'all', port: await freePort() }] }, await database(`split_one_${randomBytes(3).toString('hex')}`));
    const split = await measure(
      {
        name: 'split',
        processes: [{ role: 'api', port: await freePort() }, { role: 'api', port: await freePort() }, { role: 'worker' }, { role: 'worker' }],
        databaseEnv: (url) => ({ DATABASE_URL: bouncer.pooled(url), DATABASE_DIRECT_URL: url, DATABASE_READ_URLS: withDatabase(cluster.standbyUrl, new URL(url).pathname.slice(1)) }),
      },
      await database(`split_many_${randomBytes(3).toString('hex')}`),
    );
    return {
      oneProcess: one,
      split,
      splitToOne: { executePassthroughC32: ratio(split.executePassthroughC32.perSecond, one.executePassthroughC32.perSecond), jobs: ratio(split.jobsPerSecond, one.jobsPerSecond) },
    };
  } finally {
    await bouncer.close();
    await cluster.close();
  }
}

function withDatabase(url: string, name: string) {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}
