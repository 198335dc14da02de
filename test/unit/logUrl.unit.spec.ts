import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { logUrl } from '../../src/domain/security/logUrl.ts';

const key = `sf_live_${'a1'.repeat(12)}_${'f0'.repeat(32)}`;

describe('request URLs as the logs show them', () => {
  it.each([
    ['/api/v1/health?access_token=eyJhbGciOi.x.y', '/api/v1/health?access_token=[redacted]'],
    ['/login?token=abc123', '/login?token=[redacted]'],
    ['/x?api_key=k&limit=5', '/x?api_key=[redacted]&limit=5'],
    ['/x?client_secret=s&code=c&state=st', '/x?client_secret=[redacted]&code=[redacted]&state=st'],
    ['/x?Authorization=Bearer%20t', '/x?Authorization=[redacted]'],
    [`/trpc/runs.search?input=${encodeURIComponent(JSON.stringify({ text: key }))}`, `/trpc/runs.search?input=%7B%22text%22%3A%22sf_live_${'a1'.repeat(12)}_[redacted]%22%7D`],
    ['/x?note=whsec_abcdefghijklmnopqrstuvwxyz', '/x?note=whsec_[redacted]'],
    ['/seq/acme/web/flow/jobs?status=failed&limit=10', '/seq/acme/web/flow/jobs?status=failed&limit=10'],
  ])('%s', (url, shown) => {
    expect(logUrl(url)).toBe(shown);
  });

  it("never shows an API key's secret, wherever in the URL it is and however the rest looks", () => {
    fc.assert(
      fc.property(fc.webPath(), fc.webQueryParameters(), fc.constantFrom('', '?', '&'), (path, query, glue) => {
        const url = `${path}?${query}${glue}x=${key}`;
        expect(logUrl(url)).not.toContain('f0'.repeat(32));
        expect(logUrl(`${path}?${query}`)).toBe(logUrl(logUrl(`${path}?${query}`)));
      }),
    );
  });
});
