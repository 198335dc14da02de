// `npm ci` / `npm install` run this (the `prepare` script): build dist/ (the service and the console
// page) in a development install.
// A production install (`npm ci --omit=dev`) takes dist/ as built. The compiler alone does not tell
// them apart: TypeScript is also a (required) peer dependency of @trpc/server, so a production
// install has it too; tsx, a development dependency only, does.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const tsc = new URL('../node_modules/typescript/bin/tsc', import.meta.url);
const developmentInstall = existsSync(new URL('../node_modules/tsx', import.meta.url));
if (!developmentInstall || !existsSync(tsc)) process.exit(0);
const cwd = new URL('..', import.meta.url).pathname;
// The service (tsc), the operator console page (Vite), then the client package: what `npm run build` does.
for (const args of [[tsc.pathname, '-p', 'tsconfig.build.json'], [new URL('../node_modules/vite/bin/vite.js', import.meta.url).pathname, 'build', '--config', 'console/vite.config.ts'], [tsc.pathname, '-p', 'packages/client']]) {
  const result = spawnSync(process.execPath, args, { stdio: 'inherit', cwd });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
