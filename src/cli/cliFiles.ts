import { readFile } from 'node:fs/promises';
import { ApiError, type ErrorCode } from '../domain/errors/apiError.ts';
import { unstorableInput } from '../domain/validation/storableJson.ts';

/**
 * What the CLI reads from a file (or an option's JSON) passes the same text rule as every other
 * face's input (src/domain/validation/storableJson.ts): a NUL or an unpaired surrogate, a `\u0000`
 * escape included, is refused naming the file and the path in it, before anything is written. Past
 * this point the log would refuse the event with PostgreSQL's own message, and a command of several
 * appends could stop between them.
 */
export interface InputSource {
  /** How the error names the input: the option and the file, e.g. `--file flow.json`. */
  label: string;
  /** The code of a file that cannot be read or parsed. */
  code: ErrorCode;
}

/** The text of a file, refused when it cannot be read or stored. */
export async function readTextFile(path: string, source: InputSource): Promise<string> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ApiError(source.code, `${source.label}: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  refuseUnstorable(text, 'text', source.label);
  return text;
}

/** JSON text, parsed, refused when it is not JSON or holds what cannot be stored. */
export function parseJsonInput(text: string, source: InputSource): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ApiError(source.code, `${source.label} is not valid JSON: ${(error as Error).message}`);
  }
  refuseUnstorable(value, 'value', source.label);
  return value;
}

/** A JSON file, parsed; refused when it cannot be read, is not JSON, or holds what cannot be stored. */
export async function readJsonFile(path: string, source: InputSource): Promise<unknown> {
  return parseJsonInput(await readTextFile(path, source), source);
}

function refuseUnstorable(value: unknown, root: string, label: string) {
  const refusal = unstorableInput(value, root);
  if (refusal) throw new ApiError(refusal.code, `${label}: ${refusal.message}`);
}
