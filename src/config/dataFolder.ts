import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

export const DATA_FOLDER_NAME = '.seqflow';

/**
 * The embedded default's data folder when SEQFLOW_DATA_DIR is unset, the same from any working
 * directory inside a project: the nearest folder up from `cwd` that already has a `.seqflow`, else
 * the nearest one with Seqflow's own package.json (a checkout, or the Docker image's /app), else
 * `cwd` itself.
 */
export function defaultDataFolder(cwd: string): string {
  const ancestors: string[] = [];
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    ancestors.push(dir);
    if (dir === path.dirname(dir)) break;
  }
  const existing = ancestors.find((dir) => existsSync(path.join(dir, DATA_FOLDER_NAME)));
  if (existing) return path.join(existing, DATA_FOLDER_NAME);
  const project = ancestors.find((dir) => isSeqflowPackage(path.join(dir, 'package.json')));
  return path.join(project ?? path.resolve(cwd), DATA_FOLDER_NAME);
}

function isSeqflowPackage(file: string): boolean {
  try {
    return (JSON.parse(readFileSync(file, 'utf8')) as { name?: string }).name === 'seqflow';
  } catch {
    return false;
  }
}
