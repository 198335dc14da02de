import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const LOCK_FILE = 'serve.lock';

interface LockContent {
  pid: number;
  address: string;
  startedAt: string;
}

export class DataFolderInUse extends Error {
  constructor(dataDir: string, holder: LockContent) {
    super(
      `Another seqflow serve (pid ${holder.pid}, ${holder.address}, started ${holder.startedAt}) is using the data folder ${dataDir}. ` +
        'Stop it first, or give this one its own folder with SEQFLOW_DATA_DIR (or a database with DATABASE_URL).',
    );
    this.name = 'DataFolderInUse';
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * One `seqflow serve` per embedded data folder: the embedded PostgreSQL belongs to the server that
 * started it and stops with it, so a second server would be left without a database. The lock file
 * is created exclusively; one left by a process that no longer runs is taken over.
 */
export function acquireServeLock(dataDir: string, address: string): { release(): void } {
  const file = path.join(dataDir, LOCK_FILE);
  const content: LockContent = { pid: process.pid, address, startedAt: new Date().toISOString() };
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, JSON.stringify(content), { flag: 'wx', mode: 0o644 });
      return {
        release: () => {
          try {
            if ((JSON.parse(readFileSync(file, 'utf8')) as LockContent).pid === process.pid) unlinkSync(file);
          } catch {
            // Already gone.
          }
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      let holder: LockContent | undefined;
      try {
        holder = JSON.parse(readFileSync(file, 'utf8')) as LockContent;
      } catch {
        holder = undefined; // unreadable: half-written by a process that died
      }
      if (holder && alive(holder.pid)) throw new DataFolderInUse(dataDir, holder);
      unlinkSync(file);
    }
  }
  throw new Error(`Could not take the lock ${file}`);
}
