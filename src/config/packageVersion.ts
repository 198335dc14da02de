import { readFileSync } from 'node:fs';

/** The service's version, from its package.json (two folders up from src/config and dist/config alike). */
export const packageVersion = (): string => (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
