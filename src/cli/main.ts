import { ApiError } from '../domain/errors/apiError.ts';
import { buildCli } from './program.ts';

/** `seqflow`: runs the command line (src/cli/program.ts) and turns its errors into exit codes and messages. */
export async function runCli(argv: string[]): Promise<void> {
  try {
    await buildCli().parseAsync(argv);
  } catch (error) {
    const name = (error as Error).name;
    if (name === 'ConfigError') {
      process.stderr.write(`${(error as Error).message}\n`);
      process.exit(2);
    }
    // Start-up refusals say what to do; a stack trace would only hide that.
    if (name === 'StartupError' || name === 'DataFolderInUse') {
      process.stderr.write(`error: ${(error as Error).message}\n`);
      process.exit(1);
    }
    if (error instanceof ApiError) {
      process.stderr.write(`error ${error.code}: ${error.message}\n`);
      process.exit(1);
    }
    process.stderr.write(`error: ${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  }
}

// `seqflow events --all | head` closes stdout early: that is a normal end, not a crash.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

await runCli(process.argv);
