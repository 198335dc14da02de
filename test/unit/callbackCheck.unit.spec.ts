import { describe, expect, it } from 'vitest';
import { createAddressGuard } from '../../src/outbound/addressGuard.ts';
import { checkCallback } from '../../src/runs/callbackCheck.ts';

describe('which callback URLs a job may name', () => {
  const guard = createAddressGuard({ allowCidrs: ['127.0.0.0/8'], resolve: async (host) => (host === 'receiver.test' ? ['127.0.0.1'] : ['93.184.216.34']) });
  const check = (callbackUrl: string, plainHttpInAllowedRanges: boolean) => checkCallback(guard, { plainHttpInAllowedRanges }, { callbackUrl });

  it('refuses plain http by default, naming the development setting', async () => {
    await expect(check('http://127.0.0.1:9000/hook', false)).rejects.toMatchObject({ code: 'CALLBACK_URL_INVALID', message: expect.stringContaining('SEQFLOW_DEV_HTTP_CALLBACKS=true') });
  });
  it('with the setting, takes plain http to an address (or a name resolving only) inside the allowed ranges', async () => {
    await expect(check('http://127.0.0.1:9000/hook', true)).resolves.toMatchObject({ url: 'http://127.0.0.1:9000/hook' });
    await expect(check('http://receiver.test/hook', true)).resolves.toMatchObject({ url: 'http://receiver.test/hook' });
  });
  it('with the setting, still refuses plain http anywhere else', async () => {
    await expect(check('http://example.test/hook', true)).rejects.toMatchObject({ code: 'CALLBACK_URL_INVALID', message: expect.stringContaining('SEQFLOW_OUTBOUND_ALLOW_CIDRS') });
  });
  it('never takes another scheme', async () => {
    await expect(check('ftp://127.0.0.1/hook', true)).rejects.toMatchObject({ code: 'CALLBACK_URL_INVALID' });
  });
});
