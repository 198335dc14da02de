import { type BlockKind, type NoConfig, inputView, noReferences } from '../blockKind.ts';

/**
 * `passthrough`: its input (the previous step's output, or the message for a first block) is its
 * output, unchanged. Run by src/execution/blocks/passthroughRunner.ts.
 */
export const passthroughKind: BlockKind<NoConfig> = {
  fields: [],
  configShape: {},
  draftText: null,
  callsTools: false,
  standsAlone: false,
  receivesAttachments: () => false,
  fieldProblems: () => [],
  foreignUse: () => [],
  contextProblems: () => [],
  references: noReferences,
  draftWarnings: (_block, _at, placeholders) => placeholders,
  stepView: inputView,
  mcpHints: { adding: '', editing: '' },
};
