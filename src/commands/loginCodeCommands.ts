import { createHash, randomInt } from 'node:crypto';
import type { Kysely } from 'kysely';
import { ApiError } from '../domain/errors/apiError.ts';
import { loginCode } from '../domain/signIn/loginCode.ts';
import { loginCodeStream } from '../domain/signIn/loginCodeEvents.ts';
import type { ReadModels } from '../projections/readModelSchema.ts';
import { membershipsOf } from '../queries/memberQueries.ts';
import { type CommandDependencies, type CommandMetadata, handleCommand } from './commandHandler.ts';

/** Unambiguous when read aloud or copied by hand: no 0/O, 1/I/L. */
const ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
/** 10 characters of 31: about 50 bits, against a code that lives minutes and works once. */
const CODE_LENGTH = 10;
export const LOGIN_CODE_TTL_MS = 10 * 60_000;

const hashOf = (code: string) => createHash('sha256').update(code.replace(/[\s-]/g, '').toUpperCase()).digest('hex');

/**
 * A one-time code with which `subject` signs in to the embedded OAuth server (an assistant's sign-in
 * page). Only members of an organization get one. The code is returned once; the log keeps its hash.
 */
export async function issueLoginCode(deps: CommandDependencies & { db: Kysely<ReadModels> }, input: { subject: string; ttlMs?: number }, metadata: CommandMetadata) {
  if ((await membershipsOf(deps.db, input.subject)).length === 0) {
    throw new ApiError('USER_NOT_MEMBER', `${input.subject} is not a member of any organization: add them first (seqflow org add-member)`);
  }
  const raw = Array.from({ length: CODE_LENGTH }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');
  const code = `${raw.slice(0, 5)}-${raw.slice(5)}`;
  const codeHash = hashOf(code);
  const expiresAt = new Date(deps.now().getTime() + (input.ttlMs ?? LOGIN_CODE_TTL_MS)).toISOString();
  await handleCommand(deps, loginCodeStream(codeHash), loginCode, { type: 'IssueLoginCode', data: { codeHash, subject: input.subject, expiresAt } }, metadata);
  return { code, subject: input.subject, expiresAt };
}

/** Uses a code up: its subject, or LOGIN_CODE_INVALID (unknown, used or expired alike). */
export async function redeemLoginCode(deps: CommandDependencies, code: string, metadata: CommandMetadata): Promise<string> {
  const normalized = code.replace(/[\s-]/g, '').toUpperCase();
  if (normalized.length !== CODE_LENGTH || [...normalized].some((c) => !ALPHABET.includes(c))) {
    throw new ApiError('LOGIN_CODE_INVALID', 'This sign-in code is unknown, used or expired: ask for a new one (seqflow login-code --user <subject>)');
  }
  const result = await handleCommand(deps, loginCodeStream(hashOf(normalized)), loginCode, { type: 'RedeemLoginCode', data: { now: deps.now().toISOString() } }, metadata);
  return result.events[0]!.data.subject;
}
