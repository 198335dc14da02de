import { createHash, createPrivateKey, sign } from 'node:crypto';
import { canonicalJson } from '../domain/audit/canonicalJson.ts';
import type { EventStore, RecordedEvent } from '../eventstore/eventStore.ts';
import type { RunDataKeys } from '../security/runDataKeys.ts';
import { runFacts } from './runFacts.ts';
import { type RunRecord, type VersionDocument, loadRunRecord } from './runRecord.ts';

/** The format of `seqflow audit export`, named in every manifest. */
/**
 * Version 2 added cost to the facts. Version 3: events as stored (personal data sealed) and, in the
 * manifest, the run's data key (null once erased) and when its data was erased. Files of earlier
 * versions still verify (exportVerification.ts).
 */
export const EXPORT_FORMAT = 'seqflow-run-export/3';
export const EXPORT_FORMATS = { 'seqflow-run-export/1': 1, 'seqflow-run-export/2': 2, 'seqflow-run-export/3': 3 } as const;

export const canonicalLine = (value: unknown) => canonicalJson(value)!;
export const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
export const versionHash = (document: VersionDocument) => sha256(canonicalLine(document));

/** An event as the log stores it (sealed fields as ciphertext): what its hash covers. */
export const eventLine = (r: RecordedEvent) => ({ kind: 'event', streamId: r.streamId, revision: r.revision, position: r.position, id: r.id, type: r.type, schemaVersion: r.schemaVersion, data: r.sealedData ?? r.data, metadata: r.metadata, hash: r.hash });

/** The run's data key as an export carries it (base64; null once erased or never made), and when its data was erased. */
export interface ExportedDataKey {
  key: string | null;
  erasedAt: string | null;
}

/** The streams of a record in the order an export lists them: the run, its test run, its deliveries. */
export const streamsOf = (record: RunRecord) => [record.recorded, record.testRun, record.backtest, ...record.deliveries.map((d) => d.recorded)].filter((s) => s.length > 0);

/**
 * One run as a file that stands alone (JSON lines, each in RFC 8785 canonical form so that any
 * changed byte shows): a manifest, the published version document, every event of the run's
 * streams in order with its position and chain hash, and the facts around it derived from them
 * (credits, tool rounds, delivery attempts, test results). Personal data in events is as the log
 * stores it, sealed; the manifest carries the run's data key, so the file opens it alone, until the
 * run is erased (then the key is null and those fields read as erased). Events carry no secrets: keys are hashed
 * before they reach the log, webhook secrets never do, and provider keys are ciphertext in
 * organization streams, which an export does not include.
 */
export function exportLines(record: RunRecord, dataKey: ExportedDataKey, signer?: ManifestSigner): string[] {
  const first = record.events[0];
  const requested = first?.type === 'ExecutionRequested' ? first.data : null;
  const streams = streamsOf(record);
  const all = streams.flat();
  const manifest = {
    kind: 'manifest',
    format: EXPORT_FORMAT,
    executionId: record.executionId,
    organizationId: requested?.organizationId ?? null,
    projectId: requested?.projectId ?? null,
    flowId: requested?.flowId ?? null,
    version: record.version ? { versionId: record.version.versionId, number: record.version.number, hash: versionHash(record.version) } : null,
    startedBy: record.recorded[0]!.metadata.principal,
    route: requested?.mode ?? null,
    positions: { first: Math.min(...all.map((e) => e.position)), last: Math.max(...all.map((e) => e.position)) },
    eventCount: all.length,
    streams: streams.map((s) => ({ streamId: s[0]!.streamId, events: s.length, headHash: s.at(-1)!.hash })),
    // The file opens its own sealed fields: whoever holds it holds the run's content anyway.
    dataKey: dataKey.key,
    dataErasedAt: dataKey.erasedAt,
  };
  return [
    canonicalLine(signer ? { ...manifest, signature: { alg: 'Ed25519', value: signer(canonicalLine(manifest)) } } : manifest),
    canonicalLine({ kind: 'version', document: record.version }),
    ...all.map((r) => canonicalLine(eventLine(r))),
    canonicalLine({ kind: 'facts', ...runFacts(record) }),
  ];
}

/** Signs the manifest's canonical text (without its signature): base64 of an Ed25519 signature. */
export type ManifestSigner = (manifestText: string) => string;

export const ed25519Signer = (privateKeyPem: string): ManifestSigner => {
  const key = createPrivateKey(privateKeyPem);
  if (key.asymmetricKeyType !== 'ed25519') throw new Error('the audit signing key must be an Ed25519 private key (PEM)');
  return (text) => sign(null, Buffer.from(text, 'utf8'), key).toString('base64');
};

export async function exportRun(deps: { eventStore: EventStore; runDataKeys: RunDataKeys }, executionId: string, signer?: ManifestSigner) {
  const record = await loadRunRecord(deps.eventStore, executionId);
  const state = (await deps.runDataKeys.forOpening([executionId])).get(executionId);
  // When it was erased is the log's to say: the run's own RunDataErased.
  const erasure = record.events.find((e) => e.type === 'RunDataErased');
  return exportLines(record, { key: typeof state === 'object' ? state.toString('base64') : null, erasedAt: erasure?.type === 'RunDataErased' ? erasure.data.erasedAt : null }, signer);
}
