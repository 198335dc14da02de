import { spawn } from 'node:child_process';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '../..');
export const TSX = path.join(ROOT, 'node_modules/.bin/tsx');

export interface ProcessResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `seqflow ARGS` as a separate process, as a user would. */
export function runCli(args: string[], env: Record<string, string | undefined>): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(TSX, ['src/cli/main.ts', ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
