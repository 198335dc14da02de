#!/usr/bin/env node
// The `seqflow` command. It runs the compiled JavaScript in dist/ (`npm run build`, which `npm ci`
// runs through `prepare`). A checkout whose dist/ is missing or older than its sources runs the
// TypeScript sources through tsx instead (a development dependency), so it never runs stale code.
import { existsSync, readdirSync, statSync } from 'node:fs';

const root = new URL('../', import.meta.url);
const compiled = new URL('dist/cli/main.js', root);

/** Newest modification time under a folder (ms), or 0 when it does not exist. */
function newest(dir) {
  if (!existsSync(dir)) return 0;
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) latest = Math.max(latest, statSync(`${entry.parentPath ?? entry.path}/${entry.name}`).mtimeMs);
  }
  return latest;
}

const sources = new URL('src/', root);
const stale = !existsSync(compiled) || (existsSync(sources) && newest(sources) > statSync(compiled).mtimeMs);
if (!stale) {
  await import(compiled.href);
} else {
  let tsx;
  try {
    tsx = await import('tsx/esm/api');
  } catch {
    process.stderr.write('seqflow: dist/ is missing or older than src/, and tsx is not installed: run `npm run build`\n');
    process.exit(2);
  }
  tsx.register();
  await import(new URL('src/cli/main.ts', root).href);
}
