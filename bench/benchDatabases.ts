import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import pino from 'pino';
import { startEmbeddedPostgres } from '../src/database/embeddedPostgres.ts';

export interface BenchDatabases {
  /** The log bench's database. */
  url: string;
  /** A further fresh database on the same server, one per section, so events of sections do not mix. */
  create: (section: string) => Promise<string>;
  dropAll: () => Promise<void>;
}

/**
 * Fresh databases on BENCH_DATABASE_URL's server (default: the local PostgreSQL at 127.0.0.1:5432;
 * if none answers, an embedded one in a temp dir), all dropped at the end.
 */
export async function openBenchDatabases(): Promise<BenchDatabases> {
  const adminUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const prefix = `seqflow_bench_${randomBytes(4).toString('hex')}`;
  let admin = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 3000 });
  let base = adminUrl;
  try {
    await admin.connect();
  } catch {
    const dir = await mkdtemp(path.join(tmpdir(), 'seqflow-bench-'));
    const embedded = await startEmbeddedPostgres(dir, pino({ level: 'silent' }));
    base = embedded.url;
    admin = new pg.Client({ connectionString: base });
    await admin.connect();
  }
  const names: string[] = [];
  const create = async (section: string) => {
    const name = section ? `${prefix}_${section}` : prefix;
    await admin.query(`CREATE DATABASE ${name}`);
    names.push(name);
    const url = new URL(base);
    url.pathname = `/${name}`;
    return url.toString();
  };
  return {
    url: await create(''),
    create,
    dropAll: async () => {
      for (const name of names.reverse()) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}
