import type { z } from 'zod';
import type { ProviderName } from '../models/modelRoute.ts';

/** A block as a kind sees it: the file's fields, its `processor_config` typed by the kind's own keys. */
export interface BlockOf<Config extends z.ZodRawShape> {
  name: string;
  processor_type: string;
  prompt?: string;
  code?: string;
  model?: string;
  output_schema?: Record<string, unknown>;
  run_if?: string;
  processor_config?: { [Key in keyof Config]?: z.infer<Config[Key]> };
}

/** The earlier blocks a block reads by name; `all`: it may read any (it then gets every completed block's output). */
export interface BlockReferences {
  names: string[];
  all: boolean;
}

/**
 * The providers this service has an account with, when the publisher knows them: a model routed to
 * another provider is refused at publish rather than failing every run. The default provider
 * (`openai`) is never refused: an organization may bring its own key for it after publishing.
 */
export interface PublishContext {
  providers?: readonly ProviderName[];
  /** The names of the organization's secrets, when the publisher knows them: a request naming another is refused. */
  secrets?: readonly string[];
  /** What the flows its flow blocks run say against it (missing, cycles, too deep: src/commands/subflowChecks.ts), when the publisher has read them. */
  subflowProblems?: readonly string[];
}

/** A block field a kind may take beside `name`, `processor_type`, `run_if` and `processor_config`. */
export type BlockField = 'prompt' | 'code' | 'model' | 'output_schema';

/** How a step's recorded input reads in a trace: a model's prompt and settings, or the input itself. */
export interface StepView {
  prompt: string | null;
  systemPrompt: string | null;
  settings: Record<string, unknown> | null;
  responseFormat: unknown;
  input: unknown;
}

/**
 * What a block kind (a `processor_type`) is, as the flow's rules, traces and assistants see it: its
 * part of the block's schema, its publish checks, what it reads of earlier blocks, how its step
 * reads in a trace, and what MCP's authoring tools say of it. Pure: how it runs is its runner's
 * (src/execution/blocks/), looked up by the same name. Kinds are listed in one registry
 * (blockKinds.ts); nothing else names one.
 */
export interface BlockKind<Config extends z.ZodRawShape = z.ZodRawShape> {
  /** The block fields it takes: a block of another kind is refused them on edit. */
  fields: readonly BlockField[];
  /** Its keys of `processor_config` (zod, each optional): the file's `processor_config` is every kind's together. */
  configShape: Config;
  /** The text an assistant edits most (`update_block_draft`), or null when it has none. */
  draftText: { field: 'prompt' | 'code'; described: string } | null;
  /** Whether its blocks may enable tools (`tools_enabled`): the spec's tool rules look only at these. */
  callsTools: boolean;
  /** Whether its blocks must be steps of their own (never in a parallel step or a loop): they stop the run for someone outside it. */
  standsAlone: boolean;
  /** Whether the block is sent the request's image attachments (checked against its model before a run starts). */
  receivesAttachments(block: BlockOf<Config>): boolean;
  /** Its own fields' publish problems, each starting with `path`. */
  fieldProblems(block: BlockOf<Config>, path: string): string[];
  /** What of this kind's a block of another kind carries (its config keys): refused at publish. */
  foreignUse(block: BlockOf<Config>, path: string): string[];
  /** Problems that depend on the service publishing it (a model's provider without an account). */
  contextProblems(block: BlockOf<Config>, path: string, context: PublishContext): string[];
  /** Earlier blocks it reads by name beyond its templates' `{{steps.<name>...}}` (code: `input.steps.<name>`). */
  references(block: BlockOf<Config>): BlockReferences;
  /** A draft's warnings for the block, placed among its prompt's placeholder warnings (`placeholders`). */
  draftWarnings(block: { name: string; model: string | null; prompt: string | null }, at: string, placeholders: string[], knowsModel: (model: string) => boolean): string[];
  /** Its step's recorded input as a trace shows it. */
  stepView(input: unknown): StepView;
  /** What MCP's authoring tools tell an assistant of this kind: adding a block (`add_block`), editing one (`update_block`, `update_block_draft`); empty when nothing needs saying. */
  mcpHints: { adding: string; editing: string };
}

/** The config of a kind that takes no `processor_config` keys of its own. */
export type NoConfig = Record<never, z.ZodType>;

/** A kind that reads nothing but its input, takes no config and has no checks of its own. */
export const noReferences = (): BlockReferences => ({ names: [], all: false });
export const inputView = (input: unknown): StepView => ({ prompt: null, systemPrompt: null, settings: null, responseFormat: null, input });
