import type { Command } from 'commander';
import { ApiError } from '../domain/errors/apiError.ts';
import { printJson, withRuntime } from './cliSupport.ts';
import { FLOW_HELP, type FlowRef, ORG_HELP, PROJECT_HELP, flowIdOf, organizationOf } from './cliRefs.ts';

/** `seqflow audit ...`: what an auditor checks, from the log alone. */
export function registerAuditCommands(program: Command) {
  const audit = program.command('audit').description('audits from the event log');
  audit
    .command('verify-log')
    .description("recompute every stream's hash chain (or one stream's) and report the first event changed, removed or reordered; exit 1 if any")
    .option('--stream <id>', 'only this stream (e.g. execution-<id>, flow-<id>)')
    .action((o: { stream?: string }) =>
      withRuntime(
        async (rt) => {
          const { verifyLog } = await import('../audit/logVerification.ts');
          const result = await verifyLog(rt.eventStore, { streamId: o.stream });
          if (result.problem) {
            const { kind, streamId, revision, position, detail } = result.problem;
            process.stderr.write(`seqflow: the log was tampered with: event ${kind} in ${streamId} at revision ${revision}${position === null ? '' : ` (position ${position})`}: ${detail}\n`);
            process.exitCode = 1;
          }
          // What it found erased is part of the finding: an auditor is told which runs no longer hold their data, when and why.
          if (result.unreadable.count > 0) {
            const first = result.unreadable.events[0]!;
            process.stderr.write(`seqflow: ${result.unreadable.count} event(s) hold sealed data that does not open under their run's stored key (first: ${first.type} in ${first.streamId} at revision ${first.revision}, run ${first.executionId ?? '?'}); their chains verify, their data reads as erased\n`);
          }
          return { ok: result.problem === null, streams: result.streams, events: result.events, problem: result.problem, erasedRuns: result.erasedRuns, unreadable: result.unreadable };
        },
        { catchUp: false },
      ),
    );

  audit
    .command('export')
    .description('one run as a self-contained JSON-lines file: manifest, version document, every event with its position and hash, the facts around it')
    .requiredOption('--execution <id>')
    .option('--out <file>', 'write here instead of standard output')
    .action((o: { execution: string; out?: string }) =>
      withRuntime(
        async (rt) => {
          const [{ exportRun, ed25519Signer }, { readFile, writeFile }] = await Promise.all([import('../audit/runExport.ts'), import('node:fs/promises')]);
          const keyFile = rt.config.auditSigningKeyFile;
          const signer = keyFile ? ed25519Signer(await readFile(keyFile, 'utf8')) : undefined;
          const text = `${(await exportRun(rt, o.execution, signer)).join('\n')}\n`;
          if (!o.out) {
            process.stdout.write(text);
            return undefined;
          }
          await writeFile(o.out, text);
          return { executionId: o.execution, file: o.out, lines: text.split('\n').length - 1 };
        },
        { catchUp: false },
      ),
    );

  audit
    .command('verify')
    .description('check an export alone (no database): canonical lines, chains, manifest, version hash, facts, and an audit replay; exit 1 naming the first failing line')
    .requiredOption('--file <file>')
    .option('--public-key <file>', "the exporter's Ed25519 public key (PEM): the manifest must carry a signature that verifies with it")
    .action(async (o: { file: string; publicKey?: string }) => {
      const [{ readFile }, { verifyExport }] = await Promise.all([import('node:fs/promises'), import('../audit/exportVerification.ts')]);
      const result = verifyExport(await readFile(o.file, 'utf8'), { publicKeyPem: o.publicKey ? await readFile(o.publicKey, 'utf8') : undefined });
      if (result.failure) {
        process.stderr.write(`seqflow: ${o.file} line ${result.failure.line}: ${result.failure.reason}\n`);
        process.exitCode = 1;
      }
      printJson(result);
    });
  registerRunAudits(audit);
}

/** `seqflow audit replay|flow|who`: runs replayed, a flow's history, who did what. */
function registerRunAudits(audit: Command) {
  audit
    .command('replay')
    .description("replay runs from the log with no network and no clock, checking that their events are a legal sequence; exit 1 on any divergence")
    .option('--execution <id>', 'one run')
    .option('--org <slug|id>', ORG_HELP)
    .option('--project <slug|id>', PROJECT_HELP)
    .option('--flow <slug|id>', "every run of a flow (with --since, those requested since then): its slug or id")
    .option('--since <time>', 'ISO 8601 time')
    .action((o: { execution?: string; org?: string; project?: string; flow?: string; since?: string }) =>
      withRuntime(
        async (rt) => {
          if (!o.execution === !o.flow) throw new ApiError('VALIDATION_FAILED', 'give --execution ID or --flow ID');
          const { replayExecution, replayFlowRuns } = await import('../audit/runAudit.ts');
          const reports = o.execution ? [await replayExecution(rt.eventStore, o.execution)] : await replayFlowRuns(rt.eventStore, { flowId: await flowIdOf(rt, { ...o, flow: o.flow! }), since: o.since });
          const diverged = reports.filter((r) => r.divergence);
          for (const r of diverged) process.stderr.write(`seqflow: run ${r.executionId} diverges at ${r.divergence!.streamId} event ${r.divergence!.index} (${r.divergence!.eventType}): ${r.divergence!.reason}\n`);
          if (diverged.length > 0) process.exitCode = 1;
          return { runs: reports.length, diverged: diverged.length, reports };
        },
        { catchUp: false },
      ),
    );

  audit
    .command('flow')
    .description('which version of a flow was in production at a time: who promoted it, when, and until when')
    .option('--org <slug|id>', ORG_HELP)
    .option('--project <slug|id>', PROJECT_HELP)
    .requiredOption('--flow <slug|id>', FLOW_HELP)
    .requiredOption('--at <time>', 'ISO 8601 time')
    .action((o: FlowRef & { at: string }) => withRuntime(async (rt) => (await import('../audit/auditQuestions.ts')).productionAt(rt.eventStore, { flowId: await flowIdOf(rt, o), at: o.at })));

  audit
    .command('who')
    .description("every change to an organization's members, credits, secrets, keys, projects, flows and test cases, with who made it and when")
    .requiredOption('--org <slug|id>', ORG_HELP)
    .option('--since <time>', 'ISO 8601 time')
    .action((o: { org: string; since?: string }) =>
      withRuntime(
        async (rt) => {
          const { changesOf } = await import('../audit/auditQuestions.ts');
          return changesOf(rt.eventStore, { organizationId: (await organizationOf(rt, o)).id, since: o.since });
        },
      ),
    );
}
