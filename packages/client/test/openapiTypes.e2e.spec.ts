import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { clientTypesFrom } from '../../../scripts/clientTypes.ts';
import { createTestRuntime, serveApi } from '../../../test/support/testRuntime.ts';

describe("the client's types follow the server's OpenAPI document", () => {
  it('ships the document the server serves, and the types generated from it (else run `npm run client:types`)', async () => {
    const t = await createTestRuntime('client-types');
    const { app, base } = await serveApi(t.runtime);
    try {
      const served = await (await fetch(`${base}/openapi.json`)).json();
      const shipped = JSON.parse(await readFile(new URL('../openapi.json', import.meta.url), 'utf8'));
      expect(shipped).toEqual(served);
      expect(await readFile(new URL('../src/openapi.ts', import.meta.url), 'utf8')).toBe(await clientTypesFrom(shipped));
    } finally {
      await app.close();
      await t.close();
    }
  });
});
