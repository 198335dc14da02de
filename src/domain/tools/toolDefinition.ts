/**
 * Spec section 2: a tool as offered to a model (the caller's, or a block's server tool) and how the
 * model may be told to choose. Apart from toolRules.ts, whose checks read the flow, so a block kind
 * can name a tool without importing the registry it is part of.
 */
export const TOOL_NAME_PATTERN = /^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/;

export interface Tool {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown> };
}
export type ToolChoice = 'auto' | 'none' | 'required' | { type: 'function'; function: { name: string } };
