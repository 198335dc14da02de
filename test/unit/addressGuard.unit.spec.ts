import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import { BlockedAddressError, createAddressGuard } from '../../src/outbound/addressGuard.ts';

// Names resolve through this table, not the network (tests run offline).
const dns: Record<string, string[]> = {
  'public.example': ['93.184.216.34'],
  'public6.example': ['2606:4700:4700::1111'],
  'internal.example': ['10.1.2.3'],
  'metadata.example': ['169.254.169.254'],
  'mixed.example': ['93.184.216.34', '127.0.0.1'],
  'mapped.example': ['::ffff:192.168.0.1'],
  'loopback6.example': ['::1'],
  'compat.example': ['::a9fe:a9fe'],
  'nat64local.example': ['64:ff9b:1::a00:1'],
  'ula.example': ['fd00:ec2::254'],
};
const resolve = async (host: string) => {
  const answer = dns[host.toLowerCase().replace(/\.$/, '')];
  if (!answer) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
  return answer;
};
const guard = createAddressGuard({ resolve });

const hostile = [
  // loopback, in every textual form
  'https://127.0.0.1/x.png',
  'https://127.1/x.png',
  'https://127.0.1/x.png',
  'https://2130706433/x.png',
  'https://0x7f000001/x.png',
  'https://017700000001/x.png',
  'https://0177.0.0.1/x.png',
  'https://0x7f.0.0.1/x.png',
  'https://0x7F.1/x.png',
  'https://127.255.255.254/x.png',
  'https://[::1]/x.png',
  'https://[0:0:0:0:0:0:0:1]/x.png',
  'https://[::ffff:127.0.0.1]/x.png',
  'https://[::ffff:7f00:1]/x.png',
  'https://[0:0:0:0:0:ffff:127.0.0.1]/x.png',
  // private ranges, decimal / octal / hex / mapped
  'https://10.0.0.1/x.png',
  'https://167772161/x.png',
  'https://012.0.0.1/x.png',
  'https://0x0a.0x00.0x00.0x01/x.png',
  'https://172.16.0.1/x.png',
  'https://172.31.255.255/x.png',
  'https://192.168.1.1/x.png',
  'https://3232235777/x.png',
  'https://[::ffff:10.0.0.1]/x.png',
  'https://[::ffff:c0a8:101]/x.png',
  // link-local and cloud metadata
  'https://169.254.169.254/latest/meta-data',
  'https://169.254.0.1/x.png',
  'https://[::ffff:a9fe:a9fe]/x.png',
  'https://[fe80::1]/x.png',
  // carrier-grade NAT
  'https://100.64.0.1/x.png',
  'https://100.127.255.254/x.png',
  // unspecified, broadcast, multicast, reserved, documentation, benchmarking
  'https://0.0.0.0/x.png',
  'https://0/x.png',
  'https://[::]/x.png',
  'https://255.255.255.255/x.png',
  'https://224.0.0.1/x.png',
  'https://239.255.255.250/x.png',
  'https://[ff02::1]/x.png',
  'https://240.0.0.1/x.png',
  'https://192.0.2.1/x.png',
  'https://198.18.0.1/x.png',
  'https://192.0.0.1/x.png',
  // IPv6 unique-local and the forms that embed IPv4 (NAT64, 6to4, Teredo)
  'https://[fc00::1]/x.png',
  'https://[fd12:3456:789a::1]/x.png',
  'https://[64:ff9b::7f00:1]/x.png',
  'https://[2002:7f00:1::1]/x.png',
  'https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/x.png',
  // names: the machine's own, ones that resolve to inside, mixed answers, and ones that do not resolve
  'https://localhost/x.png',
  'https://LOCALHOST./x.png',
  'https://internal.example/x.png',
  'https://metadata.example/x.png',
  'https://mixed.example/x.png',
  'https://mapped.example/x.png',
  'https://loopback6.example/x.png',
  'https://does-not-exist.invalid/x.png',
  // IPv4-compatible IPv6 (::/96, deprecated by RFC 4291): every spelling
  'https://[::a9fe:a9fe]/x.png',
  'https://[::169.254.169.254]/x.png',
  'https://[0:0:0:0:0:0:a9fe:a9fe]/x.png',
  'https://[::10.0.0.1]/x.png',
  'https://[::127.0.0.2]/x.png',
  'https://[::7f00:1]/x.png',
  'https://[::c0a8:101]/x.png',
  'https://[::8.8.8.8]/x.png',
  'https://compat.example/x.png',
  // SIIT (RFC 6145), local-use NAT64 (RFC 8215), 6to4 around metadata, 6to4 relay anycast
  'https://[::ffff:0:7f00:1]/x.png',
  'https://[64:ff9b:1::a9fe:a9fe]/x.png',
  'https://nat64local.example/x.png',
  'https://[2002:a9fe:a9fe::1]/x.png',
  'https://192.88.99.1/x.png',
  // IPv6 outside global unicast: discard-only, site-local, multicast of every scope, reserved space
  'https://[100::1]/x.png',
  'https://[fec0::1]/x.png',
  'https://[ff0e::1]/x.png',
  'https://[ff05::2]/x.png',
  'https://[4000::1]/x.png',
  'https://[e000::1]/x.png',
  // IPv6 special-purpose space inside 2000::/3: documentation, benchmarking, ORCHID
  'https://[2001:db8::1]/x.png',
  'https://[2001:2::1]/x.png',
  'https://[2001:10::1]/x.png',
  'https://[2001:20::1]/x.png',
  // cloud metadata endpoints beyond 169.254.169.254 (AWS IPv6, Alibaba, Oracle)
  'https://[fd00:ec2::254]/x.png',
  'https://ula.example/x.png',
  'https://100.100.100.200/x.png',
  'https://192.0.0.192/x.png',
  // IPv4 documentation ranges, and more spellings of loopback
  'https://198.51.100.1/x.png',
  'https://203.0.113.1/x.png',
  'https://127.0.0.1./x.png',
  'https://127.000.000.001/x.png',
  'https://0177.1/x.png',
  'https://[0:0:0:0:0:0:0:0]/x.png',
  'https://[::ffff:0.0.0.0]/x.png',
  'https://[::ffff:169.254.169.254]/x.png',
];

describe('outbound address guard', () => {
  it(`has at least 90 hostile inputs (${hostile.length})`, () => {
    expect(hostile.length).toBeGreaterThanOrEqual(90);
  });

  it.each(hostile)('refuses %s', async (url) => {
    await expect(guard.check(url)).rejects.toBeInstanceOf(BlockedAddressError);
  });

  it.each(['https://8.8.8.8/x.png', 'https://93.184.216.34/x.png', 'https://[2606:4700:4700::1111]/x.png', 'https://public.example/x.png', 'https://public6.example/x.png'])(
    'allows the public address %s',
    async (url) => {
      await expect(guard.check(url)).resolves.toEqual(expect.any(Array));
    },
  );

  it('exempts only the configured ranges', async () => {
    const relaxed = createAddressGuard({ resolve, allowCidrs: ['127.0.0.0/8'] });
    await expect(relaxed.check('https://127.0.0.1/')).resolves.toEqual(['127.0.0.1']);
    await expect(relaxed.check('https://2130706433/')).resolves.toEqual(['127.0.0.1']);
    await expect(relaxed.check('https://10.0.0.1/')).rejects.toBeInstanceOf(BlockedAddressError);
    await expect(relaxed.check('https://[::1]/')).rejects.toBeInstanceOf(BlockedAddressError);
    // An exempted IPv4 range does not open its IPv4-compatible IPv6 spelling.
    await expect(relaxed.check('https://[::127.0.0.1]/')).rejects.toBeInstanceOf(BlockedAddressError);
  });

  it('says which address was refused and why', async () => {
    await expect(guard.check('https://internal.example/a')).rejects.toThrow('internal.example: 10.1.2.3 is a private address');
  });
});

describe('guarded fetch (connects only to the address it checked)', () => {
  async function withServer(run: (port: number) => Promise<void>) {
    const server = createServer((_req, res) => res.end('ok'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    try {
      await run((server.address() as { port: number }).port);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  }

  it('reaches an allowed address and refuses a blocked one before connecting', async () => {
    await withServer(async (port) => {
      const allowed = createAddressGuard({ allowCidrs: ['127.0.0.0/8'] });
      expect(await (await allowed.fetch(`http://127.0.0.1:${port}/`)).text()).toBe('ok');
      await allowed.close();
      const strict = createAddressGuard();
      await expect(strict.fetch(`http://127.0.0.1:${port}/`)).rejects.toBeInstanceOf(BlockedAddressError);
      await strict.close();
    });
  });

  it('refuses a name that resolves to a public address for the check and to loopback for the connection (DNS rebinding)', async () => {
    await withServer(async (port) => {
      const answers = [['93.184.216.34'], ['127.0.0.1']];
      let calls = 0;
      const rebinding = createAddressGuard({ resolve: async () => answers[Math.min(calls++, 1)]! });
      const failure = await rebinding.fetch(`http://rebind.example:${port}/`).catch((error: unknown) => error);
      expect(calls).toBe(2); // checked once up front, once inside the connection's own lookup
      expect(String((failure as Error).cause ?? failure)).toContain('127.0.0.1 is a loopback address');
      await rebinding.close();
    });
  });
});
