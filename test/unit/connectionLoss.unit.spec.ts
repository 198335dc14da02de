import { describe, expect, it } from 'vitest';
import { isConnectionLoss } from '../../src/database/connectionLoss.ts';

const pgError = (code: string, message = 'failed') => Object.assign(new Error(message), { code });

describe('a lost database connection, told from a wrong statement', () => {
  it('is a reset or refused socket, a server shutting down, or any SQLSTATE of class 08 (PgBouncer reports a lost server as 08P01)', () => {
    for (const code of ['ECONNRESET', 'ECONNREFUSED', '57P01', '57P03', '08000', '08006', '08P01']) expect(isConnectionLoss(pgError(code)), code).toBe(true);
    expect(isConnectionLoss(pgError('08P01', 'server conn crashed?'))).toBe(true);
    expect(isConnectionLoss(new Error('Connection terminated unexpectedly'))).toBe(true);
  });

  it("is not a statement's own failure", () => {
    for (const code of ['23505', '40001', '42P01', '22P02', '0800', '080000', '']) expect(isConnectionLoss(pgError(code)), code).toBe(false);
    expect(isConnectionLoss(null)).toBe(false);
    expect(isConnectionLoss({ code: 8 })).toBe(false);
  });
});
