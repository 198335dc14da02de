import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DataKeyUnwrapError, unwrapDataKey, wrapDataKey } from '../../src/security/dataKeyWrap.ts';
import { createRandomPool } from '../../src/security/randomPool.ts';

describe("a run's data key as run_data_keys stores it", () => {
  const masterKey = randomBytes(32);
  const random = createRandomPool();

  it('property: opens to the same key under the master key and the run it was made for, and under nothing else', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.uuid(), fc.uuid(), (bytes, run, otherRun) => {
        const key = Buffer.from(bytes);
        const text = wrapDataKey(key, run, masterKey, random);
        expect(text.startsWith('k2:')).toBe(true);
        expect(text).not.toContain(key.toString('base64'));
        expect(unwrapDataKey(text, run, masterKey).equals(key)).toBe(true);
        // A fresh nonce each time: the same key wraps to another text.
        expect(wrapDataKey(key, run, masterKey, random)).not.toBe(text);
        expect(() => unwrapDataKey(text, run, randomBytes(32))).toThrow(DataKeyUnwrapError);
        if (otherRun !== run) expect(() => unwrapDataKey(text, otherRun, masterKey)).toThrow(/cannot open the data key of run/);
      }),
      { numRuns: 100 },
    );
  });

  it('refuses a text that is not a wrapped key, or was changed', () => {
    const text = wrapDataKey(randomBytes(32), 'run-1', masterKey, random);
    const changed = `${text.slice(0, 10)}${text[10] === 'A' ? 'B' : 'A'}${text.slice(11)}`;
    for (const bad of [changed, text.slice(0, -8), 'iv.tag.ciphertext', '']) expect(() => unwrapDataKey(bad, 'run-1', masterKey)).toThrow(DataKeyUnwrapError);
  });
});
