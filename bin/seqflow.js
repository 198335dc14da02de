#!/usr/bin/env node
// The `seqflow` command. It runs the compiled JavaScript in dist/ (`npm run build`, which `npm ci`
// runs through `prepare`). A checkout whose dist/ is missing or older than its sources runs the
// TypeScript sources through tsx instead (a development dependency), so it never runs stale code.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';

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

// A service started on a Node.js older than package.json's `engines` fails later in ways that name
// nothing (a missing API, a syntax error deep in a dependency): `serve` refuses it here, in one line.
if (process.argv[2] === 'serve') {
  const { engines } = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
  const { default: semver } = await import('semver');
  if (!semver.satisfies(process.versions.node, engines.node)) {
    process.stderr.write(`seqflow serve needs Node.js ${engines.node} (package.json engines); this is ${process.version}: install a newer Node.js, or run it with npx -y -p node@24 -- npm start\n`);
    process.exit(1);
  }
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
