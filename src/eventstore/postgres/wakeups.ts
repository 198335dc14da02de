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
 */
export class Wakeups {
  private readonly listeners = new Set<() => void>();
  private notifyInFlight = false;
  private notifyQueued = false;
  private listenClient: pg.Client | undefined;
  private listenRetry: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly token = randomUUID();

  constructor(
    private readonly pool: pg.Pool,
    private readonly connectionString: string | undefined,
    private readonly clientConfig: pg.ClientConfig,
  ) {}

  /** Registers a wake-up callback; starts the LISTEN connection with the first one. */
  add(listener: () => void): () => void {
    this.listeners.add(listener);
    if (!this.listenClient && !this.listenRetry) void this.listen();
    return () => this.listeners.delete(listener);
  }

  /** Call after an append committed. */
  committed(): void {
    this.wakeLocal();
    if (this.notifyInFlight) {
      this.notifyQueued = true;
      return;
    }
    this.notifyInFlight = true;
    this.pool
      .query(`SELECT pg_notify('${EVENTS_CHANNEL}', $1)`, [this.token])
      .catch(() => undefined) // subscribers poll; a lost wake-up only delays them
      .finally(() => {
        this.notifyInFlight = false;
        if (this.notifyQueued && !this.closed) {
          this.notifyQueued = false;
          this.committed();
        }
      });
  }

  private wakeLocal() {
    for (const listener of this.listeners) listener();
  }

  private async listen(): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client(this.connectionString ? { ...this.clientConfig, connectionString: this.connectionString } : this.clientConfig);
    const retry = () => {
      if (this.listenClient === client) this.listenClient = undefined;
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
