import { BlockedAddressError } from '../../outbound/addressGuard.ts';
import { ReplyTooLargeError } from '../../outbound/cappedReply.ts';

/** The errors in `error`'s chain of causes, outermost first (bounded: a cycle ends it). */
function chain(error: unknown): unknown[] {
  const seen: unknown[] = [];
  for (let current = error; current && seen.length < 10 && !seen.includes(current); current = (current as { cause?: unknown }).cause) seen.push(current);
  return seen;
}

const codeOf = (error: unknown) => (typeof (error as { code?: unknown })?.code === 'string' ? (error as { code: string }).code : '');

/**
 * Why the authorization server could not read a client's metadata document (its `client_id` URL),
 * in words an operator can act on: the address guard refused the address, the name did not
 * resolve, TLS failed, the answer's status, size or time. Undefined for an error that is not such a
 * failure. The provider itself says only "fetch failed".
 */
export function metadataDocumentFailure(error: unknown): string | undefined {
  const links = chain(error);
  const detail = links.map((link) => String((link as { error_detail?: unknown })?.error_detail ?? '')).join(' ');
  const said = (link: unknown) => `${String((link as { message?: unknown })?.message ?? '')} ${String((link as { error_description?: unknown })?.error_description ?? '')}`;
  if (!links.some((link) => said(link).includes('client_id metadata document fetch failed')) ) return undefined;
  const blocked = links.find((link) => link instanceof BlockedAddressError) as BlockedAddressError | undefined;
  // The guard resolves the name itself: a name that does not resolve comes back as its refusal.
  if (blocked && /resolve/.test(blocked.reason)) return `its host's name did not resolve (DNS: ${blocked.reason}): this machine may have no way out to it`;
  if (blocked) return `its address is refused by the outbound address guard (${blocked.reason}): allow its range with SEQFLOW_OUTBOUND_ALLOW_CIDRS, or set SEQFLOW_OAUTH_CIMD=false so clients register instead`;
  const tooLarge = links.find((link) => link instanceof ReplyTooLargeError) as ReplyTooLargeError | undefined;
  if (tooLarge) return `the document is larger than ${tooLarge.limitBytes} bytes`;
  const status = /unexpected response status (\d+)/.exec(detail)?.[1];
  if (status) return `its host answered HTTP ${status}`;
  const codes = links.map(codeOf);
  if (codes.some((code) => ['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME'].includes(code))) return "its host's name did not resolve (DNS): this machine may have no way out to it";
  const tls = codes.find((code) => /^(CERT_|ERR_TLS|ERR_SSL|UNABLE_TO_|SELF_SIGNED|DEPTH_ZERO)/.test(code));
  if (tls) return `TLS with its host failed (${tls})`;
  if (links.some((link) => ['AbortError', 'TimeoutError'].includes((link as Error)?.name) || /TIMEOUT/.test(codeOf(link)))) return 'its host did not answer in time';
  const refused = codes.find((code) => ['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH'].includes(code));
  if (refused) return `its host could not be reached (${refused}): this machine may have no way out to it`;
  if (/JSON/i.test(links.map((link) => (link as Error)?.message ?? '').join(' '))) return 'the document is not JSON';
  return `it could not be read (${links.map((link) => (link as Error)?.message).filter(Boolean).at(-1) ?? 'no reason given'})`;
}
