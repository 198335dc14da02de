import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRunDataCipher, newDataKey, openValue, sealValue } from '../../src/security/runDataCipher.ts';

// Values of any size around the cipher's kept buffers (8 KiB), of any code point (up to 3 bytes of UTF-8 per UTF-16 unit, 4 per pair).
const value = fc.oneof(
  fc.jsonValue(),
  fc.record({ text: fc.string({ unit: 'grapheme', minLength: 1000, maxLength: 4000 }) }),
  fc.record({ text: fc.string({ unit: 'binary', minLength: 2500, maxLength: 3500 }) }),
  fc.integer({ min: 7000, max: 9000 }).map((n) => ({ text: 'x'.repeat(n) })),
);

describe("the run data cipher's kept buffers", () => {
  it('property: seal the same text as sealValue and open what either sealed, call after call, whatever its size', () => {
    const cipher = createRunDataCipher();
    const key = newDataKey();
    fc.assert(
      fc.property(fc.array(fc.tuple(value, fc.uuid()), { minLength: 1, maxLength: 4 }), (values) => {
        // Every text made first, then all opened: one call's bytes must not live on in another's.
        const texts = values.map(([v, eventId]) => {
          const text = cipher.seal(key, 'run-1', eventId, { v });
          expect(text).toBe(sealValue(key, 'run-1', eventId, { v }));
          return text;
        });
        values.forEach(([v], i) => {
          expect(cipher.open(key, 'run-1', texts[i]!)).toEqual(JSON.parse(JSON.stringify({ v })));
          expect(openValue(key, 'run-1', texts[i]!)).toEqual(cipher.open(key, 'run-1', texts[i]!));
        });
      }),
      { numRuns: 150 },
    );
  });

  it('refuses, as openValue does, a changed text, another run, another key, a text too short and one that is not sealed', () => {
    const cipher = createRunDataCipher();
    const key = newDataKey();
    const text = cipher.seal(key, 'run-1', '0d6c1f5e-2f43-4a4b-9d51-6f1a3c2b7e90', { message: 'hello' });
    const at = text.length - 4;
    const changed = `${text.slice(0, at)}${text[at] === 'A' ? 'B' : 'A'}${text.slice(at + 1)}`;
    for (const [k, run, t] of [
      [key, 'run-1', changed],
      [key, 'run-2', text],
      [newDataKey(), 'run-1', text],
      [key, 'run-1', 'sealed:v2:AAAA'],
      [key, 'run-1', 'not sealed'],
    ] as const) {
      expect(() => cipher.open(k, run, t)).toThrow(/does not open/);
      expect(() => openValue(k, run, t)).toThrow(/does not open/);
    }
    // After a refusal it still opens what it sealed.
    expect(cipher.open(key, 'run-1', text)).toEqual({ message: 'hello' });
  });
});
