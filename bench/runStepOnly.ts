import { openBenchDatabases } from './benchDatabases.ts';
import { benchStep } from './stepBench.ts';
const databases = await openBenchDatabases();
try {
  process.stdout.write(`${JSON.stringify(await benchStep(await databases.create('step')))}\n`);
} finally {
  await databases.dropAll();
}
process.exit(0);
