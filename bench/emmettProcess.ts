/** Emmett's appends in a process of their own (ownProcess.ts says why): `emmettProcess.ts URL WRITERS PER_WRITER`. */
import { emmettAppends } from './emmettBench.ts';
import { answerParent } from './ownProcess.ts';

const [databaseUrl, writers, perWriter] = process.argv.slice(2);
await answerParent(() => emmettAppends(databaseUrl!, Number(writers), Number(perWriter)));
