import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { errorStatus } from '../../src/api/rest/errorStatus.ts';

describe('the API reference (docs/api.md)', () => {
  const docs = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');

  it('lists every error code the service has, each under the status the service answers', () => {
    const table = docs.slice(docs.indexOf('## Error codes'));
    const documented = new Map<string, number>();
    for (const [, status, codes] of table.matchAll(/^\| (\d{3}) \| (.+) \|$/gm)) {
      for (const [, code] of codes!.matchAll(/`([A-Z_]+)`/g)) documented.set(code!, Number(status));
    }
    expect(Object.fromEntries(documented)).toEqual(errorStatus);
  });
});
