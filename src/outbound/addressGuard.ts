import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { rootCertificates } from 'node:tls';
import { Agent, fetch as undiciFetch } from 'undici';

/**
 * The one outbound address guard. Every URL the service (or a model provider on its behalf) is told
 * to reach goes through it: the host is resolved and every address must be public unicast. Loopback,
 * private, link-local, CGNAT, unspecified, multicast, broadcast, reserved, documentation,
 * benchmarking, unique-local, and the IPv6 forms that embed an IPv4 address (IPv4-mapped,
 * IPv4-compatible, NAT64, 6to4, Teredo) are refused; an IPv6 address must be global unicast (2000::/3). Addresses in every textual form (decimal, octal, hex, short) are
 * normalised by the WHATWG URL parser before they are classified.
 *
 * Where the service connects itself, `fetch` connects to the address it just checked: the check
 * runs inside the connection's own DNS lookup, so a name cannot resolve to a public address for the
 * check and to a private one for the connection.
 */
export class BlockedAddressError extends Error {
  readonly host: string;
  readonly reason: string;

  constructor(host: string, reason: string) {
    super(`${host}: ${reason}`);
    this.host = host;
    this.reason = reason;
    this.name = 'BlockedAddressError';
  }
}

export type Resolver = (hostname: string) => Promise<string[]>;

const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

const systemResolver: Resolver = async (hostname) => (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

export interface AddressGuardOptions {
  /** Ranges exempted from the guard (SEQFLOW_OUTBOUND_ALLOW_CIDRS): development and tests only. */
  allowCidrs?: string[];
  resolve?: Resolver;
  /** An extra trusted CA (PEM), for development and tests against self-signed receivers. */
  extraCa?: string;
}

export function createAddressGuard(options: AddressGuardOptions = {}) {
  const allowed = (options.allowCidrs ?? []).map((cidr) => ipaddr.parseCIDR(cidr));
  const resolve = options.resolve ?? systemResolver;

  /** Whether the operator allowed this address (SEQFLOW_OUTBOUND_ALLOW_CIDRS). */
  const inAllowedRange = (ip: ipaddr.IPv4 | ipaddr.IPv6) => allowed.some(([range, bits]) => range.kind() === ip.kind() && ip.match(range, bits));

  /** Why an address may not be reached, or null when it may. */
  function refusal(address: string): string | null {
    if (!ipaddr.isValid(address)) return `not an IP address: ${address}`;
    // IPv4-mapped IPv6 (::ffff:a.b.c.d) is judged as the IPv4 address it carries.
    const ip = ipaddr.process(address);
    if (inAllowedRange(ip)) return null;
    const range = ip.range();
    if (range !== 'unicast') return `${ip.toString()} is a ${range} address`;
    // IPv6 outside global unicast (2000::/3) is never public: the IPv4-compatible ::/96
    // (::a9fe:a9fe is 169.254.169.254), and any range ipaddr.js does not name.
    if (ip.kind() === 'ipv6' && !ip.match(GLOBAL_UNICAST_V6)) return `${ip.toString()} is not a global unicast IPv6 address`;
    return null;
  }

  /** The host as the URL parser normalised it (IPv6 without brackets). */
  const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

  /** Resolves the host of `url` and refuses it unless every address is allowed; returns the addresses. */
  async function check(rawUrl: string | URL): Promise<string[]> {
    const url = typeof rawUrl === 'string' ? new URL(rawUrl) : rawUrl;
    const host = hostOf(url);
    if (host === '') throw new BlockedAddressError(url.href, 'no host');
    let addresses: string[];
    if (ipaddr.isValid(host)) addresses = [host];
    else {
      try {
        addresses = await resolve(host);
      } catch (error) {
        throw new BlockedAddressError(host, `cannot be resolved (${(error as NodeJS.ErrnoException).code ?? 'lookup failed'})`);
      }
      if (addresses.length === 0) throw new BlockedAddressError(host, 'resolves to no address');
    }
    for (const address of addresses) {
      const why = refusal(address);
      if (why) throw new BlockedAddressError(host, why);
    }
    return addresses;
  }

  /**
   * Whether every address of `url`'s host is in a range the operator allowed (SEQFLOW_OUTBOUND_ALLOW_CIDRS):
   * a machine of the operator's own, where development settings may apply. False when it does not resolve.
   */
  async function inAllowedRanges(rawUrl: string | URL): Promise<boolean> {
    const url = typeof rawUrl === 'string' ? new URL(rawUrl) : rawUrl;
    const host = hostOf(url);
    const addresses = ipaddr.isValid(host) ? [host] : await resolve(host).catch(() => []);
    return addresses.length > 0 && addresses.every((address) => ipaddr.isValid(address) && inAllowedRange(ipaddr.process(address)));
  }

  /** A DNS lookup for sockets that yields only checked addresses. */
  const guardedLookup: LookupFunction = (hostname, lookupOptions, callback) => {
    check(`https://${ipaddr.isValid(hostname) && hostname.includes(':') ? `[${hostname}]` : hostname}/`)
      .then((addresses) => {
        const entries = addresses.map((address) => ({ address, family: ipaddr.parse(address).kind() === 'ipv6' ? 6 : 4 }));
        if ((lookupOptions as { all?: boolean }).all) (callback as unknown as (e: null, a: typeof entries) => void)(null, entries);
        else callback(null, entries[0]!.address, entries[0]!.family);
      })
      .catch((error: Error) => callback(error as NodeJS.ErrnoException, '', 0));
  };

  const dispatcher = new Agent({ connect: { lookup: guardedLookup, timeout: 5000, ...(options.extraCa ? { ca: [...rootCertificates, options.extraCa] } : {}) } });

  /** fetch that refuses blocked URLs (IP literals here, names at connect time) and never follows redirects. */
  async function guardedFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
    const url = input instanceof Request ? input.url : input.toString();
    await check(url);
    return undiciFetch(url, { ...(init as object), redirect: 'manual', dispatcher } as never) as unknown as Response;
  }

  // Closing destroys: by then (the end of a shutdown's grace period) a call still in flight is abandoned.
  return { check, refusal, inAllowedRanges, fetch: guardedFetch, lookup: guardedLookup, close: () => dispatcher.destroy() };
}

export type AddressGuard = ReturnType<typeof createAddressGuard>;
