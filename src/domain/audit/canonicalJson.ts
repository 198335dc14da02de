import { configure } from 'safe-stable-stringify';

/**
 * RFC 8785 canonical JSON (JCS): keys sorted by UTF-16 code units, numbers and strings spelled as
 * `JSON.stringify` spells them, no whitespace. Every hash and signature of the audit trail is over
 * this text, so it must never change for a value that can be stored.
 *
 * safe-stable-stringify in its deterministic mode writes exactly that text, at about 40% of the
 * CPU of `canonicalize` (6 against 15.5 µs for a block's completion event), which the log paid for
 * every event it appended. `test/unit/canonicalJson.unit.spec.ts` holds it to `canonicalize`, the
 * reference implementation, over generated values. The differences are in input no stored event
 * can hold (storableJson.ts and storableText.ts refuse it before any handler runs): a lone surrogate
 * is escaped as `JSON.stringify` escapes it instead of refused, and it recurses, so nesting some
 * thousands of levels deep overflows the stack (as `JSON.stringify` does; input is refused past 64). A
 * cycle still throws.
 */
const stringify = configure({ deterministic: true, circularValue: Error, bigint: false, strict: false });

/** The canonical text of a JSON value; undefined where `JSON.stringify` gives undefined (undefined, a function). */
export function canonicalJson(value: unknown): string | undefined {
  return stringify(value);
}
