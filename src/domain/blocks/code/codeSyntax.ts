import { parse } from 'acorn';

/**
 * Why a code block's code cannot run, found without running it: the sandbox runs the code as the
 * body of a function of `input`, so it is parsed (acorn; parsing runs nothing) as a function body
 * on its own: `return` allowed, and code that would close the sandbox's wrapper refused.
 * Answers `line L, column C: what` in the block's own lines, or null when it parses.
 */
export function codeSyntaxError(code: string): string | null {
  try {
    parse(code, { ecmaVersion: 'latest', sourceType: 'script', allowReturnOutsideFunction: true });
    return null;
  } catch (error) {
    const loc = (error as { loc?: { line: number; column: number } }).loc;
    const what = (error as Error).message.replace(/\s*\(\d+:\d+\)$/, '');
    return loc ? `line ${loc.line}, column ${loc.column + 1}: ${what}` : what;
  }
}
