import { describe, expect, it } from 'vitest';
import { turnBatchedLookup } from '../../src/database/turnBatchedLookup.ts';
import { createRunDataKeys } from '../../src/security/runDataKeys.ts';
import { createRandomPool } from '../../src/security/randomPool.ts';
import { newDataKey } from '../../src/security/runDataCipher.ts';
import { wrapDataKey } from '../../src/security/dataKeyWrap.ts';

describe('look-ups asked in one turn, sent as one query', () => {
  const table = (rows: Record<string, string>) => {
    const queries: string[][] = [];
    const lookup = async (keys: string[]) => {
      queries.push(keys);
      return new Map(keys.filter((key) => key in rows).map((key) => [key, rows[key]!]));
    };
    return { queries, lookup };
  };

  it('answers everyone who asked in the turn from one query, each for its own keys', async () => {
    const { queries, lookup } = table({ a: 'A', b: 'B', c: 'C' });
    const look = turnBatchedLookup(lookup);
    const [first, second, third] = await Promise.all([look(['a']), look(['b', 'missing']), look(['a', 'c'])]);
    expect(queries).toEqual([['a', 'b', 'missing', 'c']]);
    expect([first.get('a'), second.get('b'), second.has('missing'), third.get('c')]).toEqual(['A', 'B', false, 'C']);
  });

  it('sends a new query for whoever asks after one was sent, and starts another past the largest batch', async () => {
    const rows = { a: 'A' } as Record<string, string>;
    const { queries, lookup } = table(rows);
    const look = turnBatchedLookup(lookup, 3);
    expect((await look(['a'])).get('a')).toBe('A');
    rows.a = 'A2';
    // Asked after the first query answered: it reads again, and sees what changed since.
    expect((await look(['a'])).get('a')).toBe('A2');
    await Promise.all([look(['a', 'b']), look(['c', 'd'])]);
    expect(queries).toEqual([['a'], ['a'], ['a', 'b'], ['c', 'd']]);
  });

  it('fails every asker of a query that failed', async () => {
    const look = turnBatchedLookup<string, string>(async () => {
      throw new Error('connection terminated');
    });
    const outcomes = await Promise.allSettled([look(['a']), look(['b'])]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
  });
});

describe("runs' keys read for opening", () => {
  it('read in one statement for openers asking at once, each told its own runs: a key, erased, or none', async () => {
    const masterKey = newDataKey();
    const random = createRandomPool();
    const stored = new Map<string, string | null>([
      ['run-1', wrapDataKey(newDataKey(), 'run-1', masterKey, random)],
      ['run-2', null],
    ]);
    const statements: unknown[][] = [];
    const db = {
      async query<R extends object>(text: string, values?: unknown[]) {
        statements.push(values ?? []);
        if (!text.startsWith('SELECT execution_id, wrapped_key FROM run_data_keys')) throw new Error(`unexpected statement: ${text}`);
        const ids = values![0] as string[];
        return { rows: ids.filter((id) => stored.has(id)).map((id) => ({ execution_id: id, wrapped_key: stored.get(id) })) as R[] };
      },
    };
    const keys = createRunDataKeys(db, masterKey, { flushedWithLog: true });
    const [one, two, three] = await Promise.all([keys.forOpening(['run-1']), keys.forOpening(['run-2', 'run-3']), keys.forOpening(['run-1'])]);
    expect(statements).toEqual([[['run-1', 'run-2', 'run-3']]]);
    expect(Buffer.isBuffer(one.get('run-1'))).toBe(true);
    expect([...two]).toEqual([
      ['run-2', 'erased'],
      ['run-3', 'none'],
    ]);
    expect(three.get('run-1')).toEqual(one.get('run-1'));
  });
});
