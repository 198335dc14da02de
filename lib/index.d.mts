export type VerifyResult = { ok: true; deliveryId: string | undefined; event: string | undefined; timestamp: number } | { ok: false; reason: string };

export declare function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: Record<string, string | string[] | undefined>,
  secrets: string[],
  options?: { toleranceSeconds?: number; now?: number },
): VerifyResult;
