import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import GithubSlugger from 'github-slugger';
import { describe, expect, it } from 'vitest';
import { buildCli } from '../../src/cli/program.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const pages = ['README.md', ...readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
const textOf = (page: string) => readFileSync(path.join(ROOT, page), 'utf8');
/** The text outside fenced code blocks (a `# comment` in a shell block is not a heading). */
const prose = (text: string) => text.replace(/^```[\s\S]*?^```/gm, '');

/** The anchors GitHub makes for a page's headings. */
function anchorsOf(page: string): Set<string> {
  const slugger = new GithubSlugger();
  return new Set([...prose(textOf(page)).matchAll(/^#{1,6} (.+)$/gm)].map((m) => slugger.slug(m[1]!.replace(/`/g, '').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1'))));
}

/** Every `seqflow a b` command path the CLI defines, with its options. */
function cliCommands(): Map<string, Set<string>> {
  const commands = new Map<string, Set<string>>();
  const walk = (command: Command, prefix: string[]) => {
    for (const sub of command.commands) {
      const name = [...prefix, sub.name()];
      commands.set(name.join(' '), new Set(sub.options.map((o) => o.long!).filter(Boolean)));
      walk(sub, name);
    }
  };
  walk(buildCli(), []);
  return commands;
}

describe('the README and docs/', () => {
  it('keep the README a guide: the quickstart, the two commands and a table of contents, within ~400 lines', () => {
    const readme = textOf('README.md');
    expect(readme.split('\n').length).toBeLessThanOrEqual(400);
    expect(readme).toContain('## Quickstart');
    expect(readme).toContain('## Documentation');
  });

  it('link only to files and headings that exist', () => {
    const broken: string[] = [];
    for (const page of pages) {
      for (const [, target] of prose(textOf(page)).matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue; // http(s), mailto
        const [file, anchor] = target!.split('#') as [string, string | undefined];
        const resolved = file === '' ? page : path.posix.normalize(path.posix.join(path.posix.dirname(page), file));
        if (!existsSync(path.join(ROOT, resolved))) broken.push(`${page}: ${target} (no ${resolved})`);
        else if (anchor && resolved.endsWith('.md') && !anchorsOf(resolved).has(anchor)) broken.push(`${page}: ${target} (no heading #${anchor} in ${resolved})`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('name only CLI commands and options that exist', () => {
    const commands = cliCommands();
    const unknown: string[] = [];
    for (const page of pages) {
      // In code (a span or a block), `seqflow` starts a command: its first word must be one.
      for (const [, first] of textOf(page).matchAll(/(?:`|^|\$\(|npx )seqflow ([a-z][a-z-]*)/gm)) {
        if (!commands.has(first!)) unknown.push(`${page}: seqflow ${first}`);
      }
      for (const [, name, options] of textOf(page).matchAll(/seqflow ([a-z][a-z-]*(?: [a-z][a-z-]*)?)((?: --?[a-z][a-z-]*(?: [^-`|\n][^ `|\n]*)?)*)/g)) {
        const known = commands.get(name!) ?? commands.get(name!.split(' ')[0]!);
        if (!known) continue;
        for (const [option] of options!.matchAll(/--[a-z][a-z-]*/g)) {
          if (!known.has(option) && option !== '--help' && option !== '--version') unknown.push(`${page}: seqflow ${name} ${option}`);
        }
      }
    }
    expect(unknown).toEqual([]);
  });
});
