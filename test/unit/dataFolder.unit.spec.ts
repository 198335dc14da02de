import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultDataFolder } from '../../src/config/dataFolder.ts';

describe('the default data folder', () => {
  const project = () => {
    const root = mkdtempSync(path.join(tmpdir(), 'seqflow-folder-'));
    writeFileSync(path.join(root, 'package.json'), JSON.stringify({ name: 'seqflow' }));
    mkdirSync(path.join(root, 'src', 'cli'), { recursive: true });
    return root;
  };

  it("is the project's .seqflow from any working directory inside it", () => {
    const root = project();
    expect(defaultDataFolder(root)).toBe(path.join(root, '.seqflow'));
    expect(defaultDataFolder(path.join(root, 'src', 'cli'))).toBe(path.join(root, '.seqflow'));
  });

  it('is the nearest existing .seqflow when there is one, and the working directory otherwise', () => {
    const root = project();
    mkdirSync(path.join(root, 'src', '.seqflow'));
    expect(defaultDataFolder(path.join(root, 'src', 'cli'))).toBe(path.join(root, 'src', '.seqflow'));
    const elsewhere = mkdtempSync(path.join(tmpdir(), 'seqflow-elsewhere-'));
    expect(defaultDataFolder(elsewhere)).toBe(path.join(elsewhere, '.seqflow'));
  });
});
