import { describe, expect, it } from 'vitest';
import { codeSyntaxError } from '../../src/domain/blocks/code/codeSyntax.ts';
import { validateFlowForPublish } from '../../src/domain/flows/flowValidation.ts';

describe('a code block\'s syntax, checked before it is published', () => {
  it('accepts the body of a function of input, return included', () => {
    expect(codeSyntaxError('const words = input.message.split(/\\s+/);\nreturn { words: words.length };')).toBeNull();
  });

  it('names the line and column of a syntax error in the block\'s own lines', () => {
    expect(codeSyntaxError('const a = 1;\nreturn {')).toMatch(/^line 2, column \d+: Unexpected token/);
    expect(codeSyntaxError('const a = ;')).toBe('line 1, column 11: Unexpected token');
  });

  it('refuses code that only the wrapper would close, and code that closes the wrapper itself', () => {
    expect(codeSyntaxError('return (1')).toMatch(/^line 1, column \d+:/);
    expect(codeSyntaxError('}); globalThis.x = 1; (function () {')).not.toBeNull();
  });

  it('makes publishing a flow with such a block fail, naming the block\'s path', () => {
    const problems = validateFlowForPublish([{ block: { id: 'c', name: 'shape', processor_type: 'code', code: 'return {' } }]);
    expect(problems).toEqual([expect.stringMatching(/^steps\[0\]\.block \(block 'shape'\)\.code: does not parse: line 1, column \d+: Unexpected token$/)]);
  });
});
