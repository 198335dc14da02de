import { canonicalJson } from '../canonicalJson.ts';
import { type StepKind, type StoredBlock, type StoredStep, blocksOfStep, loopOverOf, stepKind } from './flowDefinition.ts';

/** One block where it stands: its step, the step's kind, its place in the step, the loop's path. */
export interface PlacedBlock {
  block: StoredBlock;
  stepIndex: number;
  stepKind: StepKind;
  indexInStep: number;
  loopOver: string | null;
}

export const placedBlocks = (steps: StoredStep[]): PlacedBlock[] =>
  steps.flatMap((step, stepIndex) =>
    blocksOfStep(step).map((block, indexInStep) => ({ block, stepIndex, stepKind: stepKind(step), indexInStep, loopOver: loopOverOf(step) })),
  );

const FIELDS = ['name', 'processor_type', 'model', 'prompt', 'code', 'output_schema', 'processor_config'] as const;

export interface DraftDiff {
  added: { blockId: string; name: string }[];
  removed: { blockId: string; name: string }[];
  changed: { blockId: string; name: string; fields: Record<string, { from: unknown; to: unknown }> }[];
}

/** What differs between two definitions (a version and another, or the draft), block by block (blocks keep their ids across edits). */
export function diffSteps(from: StoredStep[], to: StoredStep[]): DraftDiff {
  const before = new Map(placedBlocks(from).map((p) => [p.block.id, p]));
  const after = new Map(placedBlocks(to).map((p) => [p.block.id, p]));
  const diff: DraftDiff = { added: [], removed: [], changed: [] };
  for (const [id, placed] of after) if (!before.has(id)) diff.added.push({ blockId: id, name: placed.block.name });
  for (const [id, placed] of before) if (!after.has(id)) diff.removed.push({ blockId: id, name: placed.block.name });
  for (const [id, a] of before) {
    const b = after.get(id);
    if (!b) continue;
    const fields: Record<string, { from: unknown; to: unknown }> = {};
    for (const field of FIELDS) {
      const x = a.block[field] ?? null;
      const y = b.block[field] ?? null;
      if (canonicalJson(x) !== canonicalJson(y)) fields[field] = { from: x, to: y };
    }
    const where = (p: PlacedBlock) => ({ stepIndex: p.stepIndex, stepKind: p.stepKind, indexInStep: p.indexInStep, loopOver: p.loopOver });
    if (canonicalJson(where(a)) !== canonicalJson(where(b))) fields.position = { from: where(a), to: where(b) };
    if (Object.keys(fields).length > 0) diff.changed.push({ blockId: id, name: b.block.name, fields });
  }
  return diff;
}
