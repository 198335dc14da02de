import { randomUUID } from 'node:crypto';
import pg from 'pg';

export const EVENTS_CHANNEL = 'seqflow_events';

/**
 * Tells subscribers, in this process and in others, that new events were committed.
 *
 * NOTIFY is sent after the append has committed, never inside it (a NOTIFY in the appending
 * transaction takes a global lock at commit and serialises all appends), and bursts coalesce into
 * at most one NOTIFY in flight plus one queued. Local subscribers are woken at once without a round
 * trip; other processes hear the NOTIFY through one LISTEN connection per process, and everyone
 * polls as a fallback in case a notification is lost. A NOTIFY carries its sender's token, so the
 * sender's own LISTEN connection passes over it: its subscribers were woken at the commit, and a
 * second wake-up would only send each of them to read the log again and find nothing.
 *
 * So a NOTIFY is for other processes only, and is not sent while none listens: one process alone
 * (the default set-up) would otherwise pay a statement per commit for nobody (1.9 per three-block
 * run, each a socket write and a round trip). Whether any does is looked up in `pg_stat_activity`
 * at most once every `recheckMs`: a session of this database whose last statement was this
 * channel's LISTEN, not this process's own, or one whose statements this role may not see (unknown
 * is not nobody; nor is a server with `track_activities` off, where no statement shows). Before the
 * first look, and after a failed one, it notifies. A process that starts
 * listening is told from the next look on (a second at most); until then its subscribers poll, and
 * its LISTEN connection wakes them once when it is up.
 */
export class Wakeups {
  private readonly listeners = new Set<() => void>();
  private inFlight: Promise<void> | undefined;
  private queued: Promise<void> | undefined;
  private listenClient: pg.Client | undefined;
  private ownListenerPid: number | undefined;
  private listenRetry: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly token = randomUUID();
  private othersListen: boolean | undefined;
  private lookedAt = Number.NEGATIVE_INFINITY;

  private readonly pool: pg.Pool;
  private readonly connectionString: string | undefined;
  private readonly clientConfig: pg.ClientConfig;
  private readonly recheckMs: number;

  constructor(pool: pg.Pool, connectionString: string | undefined, clientConfig: pg.ClientConfig, recheckMs = 1_000) {
    this.pool = pool;
    this.connectionString = connectionString;
    this.clientConfig = clientConfig;
    this.recheckMs = recheckMs;
  }

  /** Registers a wake-up callback; starts the LISTEN connection with the first one. */
  add(listener: () => void): () => void {
    this.listeners.add(listener);
    if (!this.listenClient && !this.listenRetry) void this.listen();
    return () => this.listeners.delete(listener);
  }

  /**
   * Call after an append committed: wakes this process's subscribers at once; resolves once other
   * processes have been told (or none listened). Never rejects: subscribers poll, so a lost wake-up
   * only delays them.
   */
  committed(): Promise<void> {
    this.wakeLocal();
    if (this.closed) return Promise.resolve();
    if (!this.inFlight) return this.tell();
    // One more round after the one in flight covers every commit made meanwhile.
    this.queued ??= this.inFlight.then(() => {
      this.queued = undefined;
      return this.tell();
    });
    return this.queued;
  }

  private tell(): Promise<void> {
    const round: Promise<void> = (async () => {
      try {
        if (await this.anotherListens()) await this.pool.query(`SELECT pg_notify('${EVENTS_CHANNEL}', $1)`, [this.token]);
      } catch {
        // subscribers poll; a lost wake-up only delays them
      }
    })().finally(() => {
      if (this.inFlight === round) this.inFlight = undefined;
    });
    this.inFlight = round;
    return round;
  }

  /** Whether a process other than this one listens, as last looked up (see the class's comment). */
  private async anotherListens(): Promise<boolean> {
    const now = performance.now();
    if (this.othersListen !== undefined && now - this.lookedAt < this.recheckMs) return this.othersListen;
    this.lookedAt = now;
    try {
      // With track_activities off nobody's statements show: unknown, so everyone is told.
      const { rows } = await this.pool.query<{ others: boolean }>(
        `SELECT current_setting('track_activities')::boolean IS NOT TRUE OR count(*) > 0 AS others FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> $1 AND query IN ('LISTEN ${EVENTS_CHANNEL}', '<insufficient privilege>')`,
        [this.ownListenerPid ?? 0],
      );
      this.othersListen = rows[0]!.others;
    } catch {
      this.othersListen = undefined;
      return true;
    }
    return this.othersListen;
  }

  private wakeLocal() {
    for (const listener of this.listeners) listener();
  }

  private async listen(): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client(this.connectionString ? { ...this.clientConfig, connectionString: this.connectionString } : this.clientConfig);
    const retry = () => {
      if (this.listenClient === client) {
        this.listenClient = undefined;
        this.ownListenerPid = undefined;
      }
      void client.end().catch(() => undefined);
      if (!this.closed && this.listeners.size > 0 && !this.listenRetry) {
        this.listenRetry = setTimeout(() => {
          this.listenRetry = undefined;
          void this.listen();
        }, 1000);
        this.listenRetry.unref();
      }
    };
    client.on('error', retry);
    client.on('notification', (notification) => {
      if (notification.payload !== this.token) this.wakeLocal();
    });
    try {
      this.listenClient = client;
      await client.connect();
      // Its own LISTEN is not another process's (anotherListens). Asked before the LISTEN: pg_stat_activity shows a session's last statement.
      this.ownListenerPid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      await client.query(`LISTEN ${EVENTS_CHANNEL}`);
      if (this.closed) await client.end();
      // Events committed while (re)connecting were announced to nobody: wake everyone once.
      else this.wakeLocal();
    } catch {
      retry();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.listenRetry) clearTimeout(this.listenRetry);
    const client = this.listenClient;
    this.listenClient = undefined;
    await client?.end().catch(() => undefined);
  }
}
