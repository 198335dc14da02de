import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

const MASTER_KEY_FILE = 'master.key';

/**
 * The key that encrypts secrets at rest. With DATABASE_URL set it must come from SEQFLOW_MASTER_KEY
 * (config enforces that); on the embedded default it is generated once and kept in the data dir.
 */
export async function resolveMasterKey(configured: Buffer | undefined, dataDir: string): Promise<Buffer> {
  if (configured) return configured;
  const file = path.join(path.resolve(dataDir), MASTER_KEY_FILE);
  if (existsSync(file)) {
    const key = Buffer.from((await readFile(file, 'utf8')).trim(), 'base64');
    if (key.length !== 32) throw new Error(`${file} does not hold a 32-byte base64 key`);
    return key;
  }
  await mkdir(path.dirname(file), { recursive: true });
  const key = randomBytes(32);
  await writeFile(file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' }).catch(async (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
  // Another process may have won the race to create it: use what is on disk.
  return Buffer.from((await readFile(file, 'utf8')).trim(), 'base64');
}
