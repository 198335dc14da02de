import { randomBytes, randomFillSync } from 'node:crypto';

/**
 * Random bytes from a buffer the CSPRNG fills 4 KiB at a time. Each small `randomBytes` call is an
 * OpenSSL call of its own (several µs: an eighth of a run's sealing in the bench's profile, where
 * every new run takes a data key and an IV). Every byte is handed out once, as a copy, and the
 * buffer is refilled before any is handed out again.
 */
export type RandomPool = (size: number) => Buffer;

export function createRandomPool(poolSize = 4096): RandomPool {
  const pool = Buffer.alloc(poolSize);
  let offset = poolSize;
  return (size) => {
    if (size > poolSize) return randomBytes(size);
    if (offset + size > poolSize) {
      randomFillSync(pool);
      offset = 0;
    }
    const taken = Buffer.from(pool.subarray(offset, offset + size));
    offset += size;
    return taken;
  };
}
