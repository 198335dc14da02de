import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UNSTORABLE_TEXT, cutAtCodePoint, storableExcerpt, storableText, storableTextOfBytes } from '../../src/domain/text/storableText.ts';
import { capFailureMessage, FAILURE_MESSAGE_MAX } from '../../src/domain/execution/failureMessage.ts';

/** Strings as the world sends them: lone surrogates, NULs, emoji, RTL and combining marks, long runs. */
const hostileText = fc.oneof(
  fc.string({ unit: 'binary' }),
  fc.string({ unit: 'grapheme' }),
  fc.array(fc.constantFrom('\u0000', '\ud83d', '\ude00', '😀', '👩‍👩‍👧', '\u202e', 'e\u0301', 'ש', 'x', '\ufffd'), { maxLength: 300 }).map((parts) => parts.join('')),
);

describe('the storable-text boundary', () => {
  it('leaves nothing PostgreSQL refuses, and cuts only on a code point, whatever the text and the bound', () => {
    fc.assert(
      fc.property(hostileText, fc.nat({ max: 600 }), (text, max) => {
        const excerpt = storableExcerpt(text, max, (n) => `… [${n}]`);
        expect(UNSTORABLE_TEXT.test(excerpt)).toBe(false);
        if (storableText(text).length <= max) expect(excerpt).toBe(storableText(text));
        else expect(excerpt.length).toBeLessThanOrEqual(max);
        // jsonb takes it: it survives a JSON round trip as well-formed text.
        expect(JSON.parse(JSON.stringify(excerpt)).isWellFormed()).toBe(true);
      }),
    );
  });

  it('keeps storable text as it is, and a prefix of it when cut', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.nat({ max: 200 }), (text, max) => {
        const clean = storableText(text);
        expect(clean).toBe(text.replaceAll('\u0000', '\ufffd'));
        expect(clean.startsWith(cutAtCodePoint(clean, max))).toBe(true);
      }),
    );
  });

  it('never ends a cut inside a surrogate pair: an emoji across the bound is left out whole', () => {
    const text = `${'x'.repeat(511)}😀tail`;
    expect(cutAtCodePoint(text, 512)).toBe('x'.repeat(511));
    expect(cutAtCodePoint(text, 513)).toBe(`${'x'.repeat(511)}😀`);
    expect(storableExcerpt('a\u0000b\ud800c', 100)).toBe('a\ufffdb\ufffdc');
  });

  it('decodes any bytes, cut at a UTF-8 sequence boundary, as storable text within the byte bound', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2000 }), fc.nat({ max: 600 }), (bytes, max) => {
        const text = storableTextOfBytes(bytes, max);
        expect(UNSTORABLE_TEXT.test(text)).toBe(false);
        expect(text.isWellFormed()).toBe(true);
      }),
    );
    const emojiAcross = Buffer.from(`${'x'.repeat(511)}😀`, 'utf8');
    expect(storableTextOfBytes(emojiAcross, 512)).toBe('x'.repeat(511));
    expect(storableTextOfBytes(Buffer.from([0x3c, 0x00, 0xff, 0x3e]), 10)).toBe('<\ufffd\ufffd>');
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.nat({ max: 300 }), (text, max) => {
        // Valid UTF-8 cut anywhere decodes to a prefix of the text: no replacement character from the cut.
        const decoded = storableTextOfBytes(Buffer.from(storableText(text), 'utf8'), max);
        expect(storableText(text).startsWith(decoded)).toBe(true);
        expect(Buffer.byteLength(decoded, 'utf8')).toBeLessThanOrEqual(max);
      }),
    );
  });

  it('caps a thrown message through the same boundary: a NUL or a cut emoji never reaches the log', () => {
    expect(capFailureMessage('boom\u0000here')).toBe('boom\ufffdhere');
    const long = `${'x'.repeat(FAILURE_MESSAGE_MAX - 1)}😀${'y'.repeat(10)}`;
    expect(capFailureMessage(long)).toBe(`${'x'.repeat(FAILURE_MESSAGE_MAX - 1)}… [truncated: ${long.length} characters]`);
    fc.assert(
      fc.property(hostileText, (text) => {
        expect(UNSTORABLE_TEXT.test(capFailureMessage(text.repeat(20)))).toBe(false);
      }),
    );
  });
});
