import { createPublicKey, verify } from 'node:crypto';
import { canonicalJson } from '../domain/audit/canonicalJson.ts';
import { type ChainState, emptyChain, verifyNext } from '../domain/audit/chainVerification.ts';
import { type ExecutionEvent, executionStream } from '../domain/execution/executionEvents.ts';
import type { DeliveryEvent } from '../domain/webhooks/deliveryEvents.ts';
import { decodeRecorded } from '../eventstore/decodeRecorded.ts';
import type { RecordedEvent } from '../eventstore/eventStore.ts';
import { replayRecord } from './runAudit.ts';
import { openData } from '../domain/privacy/sealedFields.ts';
import { type DataKey, createRunDataCipher } from '../security/runDataCipher.ts';
import { createSealedTextOpener, revisionKey } from '../eventstore/sealedTextOpener.ts';
import { runFacts } from './runFacts.ts';
import { EXPORT_FORMAT, EXPORT_FORMATS, versionHash } from './runExport.ts';
import type { RunRecord, VersionDocument } from './runRecord.ts';

/** The first line of an export that does not hold (1-based), and why; null when the whole file holds. */
export interface ExportVerification {
  ok: boolean;
  lines: number;
  failure: { line: number; reason: string } | null;
}

type Line = Record<string, unknown> & { kind?: unknown };

/**
 * Checks an export without the database: every line is canonical JSON (so any changed byte shows),
 * the manifest comes first and the version document second with the hash the manifest names, each
 * stream's events chain from the genesis hash to the head the manifest names, the counts and
 * positions match, the facts are what the events say, and the run replays (audit replay).
 */
export function verifyExport(text: string, options: { publicKeyPem?: string } = {}): ExportVerification {
  try {
    return checkExport(text, options.publicKeyPem);
  } catch (error) {
    return { ok: false, lines: text.split('\n').length, failure: { line: 1, reason: `the file cannot be read as an export: ${(error as Error).message}` } };
  }
}

function checkExport(text: string, publicKeyPem: string | undefined): ExportVerification {
  const raw = text.endsWith('\n') ? text.slice(0, -1).split('\n') : text.split('\n');
  const fail = (line: number, reason: string): ExportVerification => ({ ok: false, lines: raw.length, failure: { line, reason } });
  const lines: Line[] = [];
  for (const [i, line] of raw.entries()) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      return fail(i + 1, 'not JSON');
    }
    if (canonicalJson(parsed) !== line) return fail(i + 1, 'not in the canonical form it was written in: a byte was changed');
    lines.push(parsed as Line);
  }
  const [manifest, version] = lines;
  const format = manifest?.kind === 'manifest' && typeof manifest.format === 'string' && Object.hasOwn(EXPORT_FORMATS, manifest.format) ? EXPORT_FORMATS[manifest.format as keyof typeof EXPORT_FORMATS] : undefined;
  if (format === undefined || !manifest) return fail(1, `the first line must be the manifest (${EXPORT_FORMAT}, or an earlier ${Object.keys(EXPORT_FORMATS).join(', ')})`);
  if (publicKeyPem !== undefined) {
    const { signature, ...signed } = manifest as Line & { signature?: { alg?: string; value?: string } };
    if (!signature?.value || signature.alg !== 'Ed25519') return fail(1, 'the manifest is not signed, and a public key was given');
    if (!verify(null, Buffer.from(canonicalJson(signed)!, 'utf8'), createPublicKey(publicKeyPem), Buffer.from(signature.value, 'base64'))) return fail(1, 'the manifest signature does not verify with the given public key');
  }
  if (version?.kind !== 'version') return fail(2, 'the second line must be the version document');
  const document = version.document as VersionDocument | null;
  const named = manifest.version as { versionId: string; hash: string } | null;
  if (!document || !named || versionHash(document) !== named.hash || document.versionId !== named.versionId) return fail(2, 'the version document does not match the hash in the manifest');

  const last = lines.length;
  if (lines[last - 1]?.kind !== 'facts') return fail(last, 'the last line must be the facts');
  const eventLines = lines.slice(2, -1);
  const chains = new Map<string, ChainState>();
  const recorded: RecordedEvent[] = [];
  for (const [i, line] of eventLines.entries()) {
    if (line.kind !== 'event') return fail(i + 3, 'an event line was expected here');
    const event = { ...(line as unknown as RecordedEvent), recordedAt: new Date(0) };
    if (!isRunStream(event.streamId, manifest.executionId as string)) return fail(i + 3, `${event.streamId} is not a stream of this run`);
    const step = verifyNext(chains.get(event.streamId) ?? emptyChain(), event);
    if ('problem' in step) return fail(i + 3, `${step.problem.kind}: ${step.problem.detail}`);
    chains.set(event.streamId, step.state);
    recorded.push(event);
  }
  const streams = manifest.streams as { streamId: string; events: number; headHash: string }[];
  const positions = recorded.map((e) => e.position);
  if (manifest.eventCount !== recorded.length || streams.length !== chains.size) return fail(1, `the manifest names ${String(manifest.eventCount)} events in ${streams.length} streams; the file holds ${recorded.length} in ${chains.size}`);
  for (const stream of streams) {
    const chain = chains.get(stream.streamId);
    if (!chain || chain.nextRevision !== stream.events || chain.head !== stream.headHash) return fail(1, `the manifest's head of ${stream.streamId} is not the last event of that stream in the file`);
  }
  const bounds = manifest.positions as { first: number; last: number };
  if (bounds.first !== Math.min(...positions) || bounds.last !== Math.max(...positions)) return fail(1, 'the manifest positions are not those of the events');

  // Files written before sealing hold no sealed event, so the key (format 3) only ever opens what it sealed.
  const dataKey = typeof manifest.dataKey === 'string' ? Buffer.from(manifest.dataKey, 'base64') : null;
  const record = recordOf(manifest.executionId as string, openedWith(recorded, manifest.executionId as string, dataKey), document);
  const requested = record.events[0]?.type === 'ExecutionRequested' ? record.events[0].data : null;
  if (!requested || requested.executionId !== manifest.executionId || requested.flowId !== manifest.flowId || requested.organizationId !== manifest.organizationId || requested.versionId !== named.versionId) {
    return fail(1, "the manifest does not describe the run's own ExecutionRequested");
  }
  if (canonicalJson({ kind: 'facts', ...runFacts(record, format) }) !== raw[last - 1]) return fail(last, 'the facts are not what the events say');
  const replay = replayRecord(record);
  if (replay.divergence) {
    const at = recorded.findIndex((e) => e.streamId === replay.divergence!.streamId && e.position === replay.divergence!.position);
    return fail(at >= 0 ? at + 3 : 1, `the run does not replay: ${replay.divergence.reason}`);
  }
  return { ok: true, lines: raw.length, failure: null };
}

/**
 * The events as the reader of the file sees them: sealed fields of this run opened with the file's
 * key (a part held by an earlier event from that event in the file), any other sealed field read as
 * erased.
 */
function openedWith(events: RecordedEvent[], executionId: string, key: DataKey | null): RecordedEvent[] {
  const byRevision = new Map(events.map((e) => [revisionKey(e.streamId, e.revision), e]));
  const openText = createSealedTextOpener(
    createRunDataCipher(),
    (runId) => (key && runId === executionId ? key : 'erased'),
    (event, back) => byRevision.get(revisionKey(event.streamId, event.revision - back)),
  );
  return events.map((event) => {
    if (event.metadata.sealed !== true) return event;
    const { data } = openData(event.type, event.data, openText(event));
    return { ...event, data, sealedData: event.data };
  });
}

const isRunStream = (streamId: string, executionId: string) => streamId === executionStream(executionId) || streamId.startsWith('testrun-') || streamId.startsWith('backtest-') || streamId.startsWith('delivery-');

/** The run's record rebuilt from the file's events (streams told apart by their names). */
function recordOf(executionId: string, recorded: RecordedEvent[], version: VersionDocument): RunRecord {
  const byStream = new Map<string, RecordedEvent[]>();
  for (const event of recorded) {
    const stream = byStream.get(event.streamId);
    if (stream) stream.push(event);
    else byStream.set(event.streamId, [event]);
  }
  const run = byStream.get(executionStream(executionId)) ?? [];
  const record: RunRecord = {
    executionId,
    recorded: run,
    events: run.map((r) => decodeRecorded(r) as ExecutionEvent),
    version,
    testRun: [...byStream].find(([id]) => id.startsWith('testrun-'))?.[1] ?? [],
    backtest: [...byStream].find(([id]) => id.startsWith('backtest-'))?.[1] ?? [],
    deliveries: [...byStream].filter(([id]) => id.startsWith('delivery-')).map(([id, events]) => ({ deliveryId: id.slice('delivery-'.length), recorded: events, events: events.map((r) => decodeRecorded(r) as DeliveryEvent) })),
  };
  return record;
}
