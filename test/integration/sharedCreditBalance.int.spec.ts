import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedCreditBalance } from '../../src/queries/creditQueries.ts';
import { createTestRuntime, type TestRuntime } from '../support/testRuntime.ts';

/** The balance reads before llm calls: one read per organization while one is in flight, shared by whoever asks meanwhile. */
describe('credit balances read for many runs at once', () => {
  let t: TestRuntime;
  const reads: string[] = [];

  beforeAll(async () => {
    t = await createTestRuntime('shared_credits');
    await t.runtime.db.insertInto('credit_balances').values([{ organization_id: 'org-a', balance: 500 }, { organization_id: 'org-b', balance: 7 }]).execute();
  });
  afterAll(async () => {
    await t?.close();
  });

  const counted = () =>
    t.runtime.db.withPlugin({
      transformQuery: (args) => (reads.push(args.node.kind), args.node),
      transformResult: async (args) => args.result,
    });

  it('answers everyone who asks while a read is in flight from that one read, per organization', async () => {
    const balance = sharedCreditBalance(counted());
    reads.length = 0;
    const answers = await Promise.all([balance('org-a'), balance('org-a'), balance('org-b'), balance('org-a'), balance('missing')]);
    expect(answers).toEqual([500, 500, 7, 500, 0]);
    expect(reads).toHaveLength(3);
  });

  it('reads again once the read in flight has answered: a later question sees a later balance', async () => {
    const balance = sharedCreditBalance(counted());
    reads.length = 0;
    expect(await balance('org-b')).toBe(7);
    await t.runtime.db.updateTable('credit_balances').set({ balance: 3 }).where('organization_id', '=', 'org-b').execute();
    expect(await balance('org-b')).toBe(3);
    expect(reads).toHaveLength(2);
  });
});
