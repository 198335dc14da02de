/**
 * The receiver a callback URL names, for bounding the attempts in flight to one receiver: its host
 * and port as the URL standard writes them (lower-case, the scheme's default port left out). The
 * read model keeps it per delivery (`webhook_deliveries.receiver_host`) for the claim query.
 */
export function receiverHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
