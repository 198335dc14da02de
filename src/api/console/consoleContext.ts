import type { FastifyRequest } from 'fastify';
import { isOperator, linkSessionOpen } from '../../commands/operatorCommands.ts';
import type { Principal } from '../../domain/events/eventMetadata.ts';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { CommandDependencies } from '../../commands/commandHandler.ts';
import type { EventStore } from '../../eventstore/eventStore.ts';
import type { RunService } from '../../runs/runService.ts';
import type { BacktestService } from '../../backtests/backtestService.ts';
import type { ProjectionRunner } from '../../projections/projectionRunner.ts';
import type { ReadModels } from '../../projections/readModelSchema.ts';
import type { Watchdog } from '../../watchdog/watchdog.ts';
import type { Supervisor } from '../../supervision/supervisor.ts';
import type { JwtVerifier } from '../auth/jwtVerifier.ts';
import type { ConsoleSignIns } from '../oauth/consoleSignIns.ts';
import type { RunDataKeys } from '../../security/runDataKeys.ts';
import { SESSION_COOKIE, type ConsoleSessions } from './consoleSession.ts';
import type { ReadsAfterChanges } from '../readsAfterChanges.ts';

/** The services the console's procedures work with, made once by the console's wiring. */
export interface ConsoleServices {
  commands: CommandDependencies;
  /** The read models: a query runs on a read replica inside `operatorReads.read`, on the primary otherwise (and every write, wherever). */
  db: Kysely<ReadModels>;
  /** Queries read after the operator's own changes (src/api/readsAfterChanges.ts). */
  operatorReads: ReadsAfterChanges;
  eventStore: EventStore;
  /** The run use cases an operator calls: list, cancel, rerun. */
  runs: Pick<RunService, 'listAll' | 'cancel' | 'rerun' | 'eraseData'>;
  /** Backtests (started, listed, read) and test cases made from runs. */
  backtests: BacktestService;
  /** Their lag (the System view), and waiting for a position (a live event is sent once they hold it). */
  projections: Pick<ProjectionRunner, 'status' | 'waitForPosition'>;
  /** The process's supervised tasks, for the System view. */
  tasks: Pick<Supervisor, 'status'>;
  /** The watchdog's last report (null where no worker of this process runs it yet). */
  watchdog: Pick<Watchdog, 'last'>;
  masterKey: Buffer;
  /** Runs' data keys: an export carries its run's. */
  runDataKeys: RunDataKeys;
  secretGraceSeconds: number;
  /** For the shadow read models of a verification (connections of their own). */
  databaseUrl: string;
  logger: Logger;
  /** Assistants' sign-ins at the embedded authorization server (null with an external issuer). */
  signIns: ConsoleSignIns | null;
}

export interface ConsoleContext {
  services: ConsoleServices;
  /** The signed-in operator, or null (every procedure but none then refuses). */
  operator: Principal | null;
  /** Live event subscriptions open on this listener (bounded: each holds a place in the log). */
  live: LiveSubscriptions;
  /** The HTTP request's id (X-Request-Id), stamped on the events the call appends. */
  requestId: string;
}

export interface LiveSubscriptions {
  /** False when the bound is reached. */
  enter(): boolean;
  leave(): void;
}

export function createLiveSubscriptions(max: number): LiveSubscriptions {
  let open = 0;
  return {
    enter: () => (open < max ? (open++, true) : false),
    leave: () => void (open = Math.max(0, open - 1)),
  };
}

const cookieOf = (header: string | undefined, name: string) =>
  header
    ?.split(';')
    .map((part) => part.trim().split('='))
    .find(([key]) => key === name)?.[1];

/**
 * Who calls the console: a session opened by a one-time link (cookie) that no `seqflow console
 * revoke` has ended since, or an OAuth JWT whose subject holds the operator role. Both are checked
 * against the log at every call: a revoke takes effect at once. Anything else is no operator.
 */
export function createConsoleContextFactory(services: ConsoleServices, sessions: ConsoleSessions, jwt: JwtVerifier | undefined, audience: string | undefined, live: LiveSubscriptions) {
  return async ({ req }: { req: FastifyRequest }): Promise<ConsoleContext> => {
    const session = cookieOf(req.headers.cookie, SESSION_COOKIE);
    if (session) {
      const opened = await sessions.verify(decodeURIComponent(session));
      if (opened && (await linkSessionOpen(services.commands, opened.openedAtMs))) return { services, live, requestId: req.id, operator: { kind: 'user', id: `link:${opened.operator}`, via: 'console' } };
    }
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
    if (bearer && jwt) {
      const subject = await jwt(bearer, audience ? { audience } : {}).then((v) => v.subject, () => null);
      if (subject && (await isOperator(services.commands, subject))) return { services, live, requestId: req.id, operator: { kind: 'user', id: subject, via: 'console' } };
    }
    return { services, live, requestId: req.id, operator: null };
  };
}
