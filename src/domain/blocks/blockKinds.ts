import type { BlockKind } from './blockKind.ts';
import { approvalKind } from './approval/approvalKind.ts';
import { codeKind } from './code/codeKind.ts';
import { flowKind } from './flow/flowKind.ts';
import { httpKind } from './http/httpKind.ts';
import { llmKind } from './llm/llmKind.ts';
import { passthroughKind } from './passthrough/passthroughKind.ts';

/**
 * Every block kind, by its `processor_type`: the one registry the flow's schema and rules, traces
 * and MCP look a kind up in (its runner is looked up by the same name in
 * src/execution/blocks/blockRunners.ts, whose type requires one for each name here). Adding a kind
 * is its folder and a line here, and one there.
 */
export const blockKinds = {
  llm: llmKind,
  passthrough: passthroughKind,
  code: codeKind,
  http: httpKind,
  approval: approvalKind,
  flow: flowKind,
} as const satisfies Record<string, BlockKind>;

export type ProcessorType = keyof typeof blockKinds;

/** The kinds' names, in the registry's order (the order error messages list them in). */
export const processorTypes = Object.keys(blockKinds) as [ProcessorType, ...ProcessorType[]];

type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;
/** Every kind's `processor_config` keys together: the file's `processor_config` (flowDefinition.ts). */
export type ProcessorConfigShape = UnionToIntersection<(typeof blockKinds)[ProcessorType]['configShape']>;
export const processorConfigShape = Object.assign({}, ...processorTypes.map((type) => blockKinds[type].configShape)) as ProcessorConfigShape;

/** The kinds that take a field (`prompt`: llm), as refusals name them. */
export const kindsTaking = (field: BlockKind['fields'][number]) => processorTypes.filter((type) => blockKinds[type].fields.includes(field));
