import type { Block } from '../domain/flows/flowDefinition.ts';
import { type BlockReferences, blockReferences } from '../domain/flows/stepReferences.ts';

/**
 * A block's references worked out once per block object: versions are cached and immutable, so a
 * code block is parsed once, not on every run. Kept in a WeakMap: an entry goes when its version
 * leaves the flow catalog's (bounded) cache.
 */
export function createBlockReferencesMemo(): (block: Block) => BlockReferences {
  const known = new WeakMap<Block, BlockReferences>();
  return (block) => {
    let references = known.get(block);
    if (!references) known.set(block, (references = blockReferences(block)));
    return references;
  };
}
