// `npm ci` / `npm install` run this (the `prepare` script): build dist/ when the TypeScript compiler
// is installed. A production install (`npm ci --omit=dev`) has no compiler and takes dist/ as built.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const tsc = new URL('../node_modules/typescript/bin/tsc', import.meta.url);
if (!existsSync(tsc)) process.exit(0);
const result = spawnSync(process.execPath, [tsc.pathname, '-p', 'tsconfig.build.json'], { stdio: 'inherit', cwd: new URL('..', import.meta.url).pathname });
process.exit(result.status ?? 1);
