import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/domain/audit/canonicalJson.ts';

/** Strings as they can be stored: any code points, so no lone surrogates (storableText.ts refuses those). */
const storableString = fc.string({ unit: 'binary' });

/** What event data holds: JSON values, optional fields left undefined, dates, numbers of every spelling. */
const eventValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.integer(),
    storableString,
    fc.date({ noInvalidDate: true }),
    tie('array'),
    tie('object'),
  ),
  array: fc.array(fc.oneof(tie('value'), fc.constant(undefined)), { maxLength: 6 }),
  object: fc.dictionary(storableString, fc.oneof(tie('value'), fc.constant(undefined)), { maxKeys: 8 }),
}));

describe('canonical JSON (RFC 8785), as every event hash and export signature is computed', () => {
  it('is, for any value an event can hold, the text the reference implementation (canonicalize) writes', () => {
    fc.assert(
      fc.property(eventValue.value, (value) => {
        expect(canonicalJson(value)).toBe(canonicalize(value));
      }),
      { numRuns: 5000 },
    );
  });

  it('orders keys by UTF-16 code units and spells numbers as JavaScript does (the RFC\'s own examples)', () => {
    expect(canonicalJson({ '\u20ac': 'Euro Sign', '\r': 'Carriage Return', '\ufb33': 'Hebrew Letter Dalet With Dagesh', '1': 'One', '\ud83d\ude00': 'Emoji: Grinning Face', '\u0080': 'Control', '\u00f6': 'Latin Small Letter O With Diaeresis' })).toBe(
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis","\u20ac":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
    );
    expect(canonicalJson([333333333.3333333, 1e30, 4.5, 2e-3, 0.000000000000000000000000001, -0])).toBe('[333333333.3333333,1e+30,4.5,0.002,1e-27,0]');
  });

  it('leaves out undefined fields, writes undefined array items as null, and refuses a cycle', () => {
    expect(canonicalJson({ b: undefined, a: [undefined, 1] })).toBe('{"a":[null,1]}');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => canonicalJson(cyclic)).toThrow();
  });
});
