import pino, { type Logger } from 'pino';
import pretty from 'pino-pretty';

export type LogFormat = 'json' | 'pretty';

/**
 * SEQFLOW_LOG_FORMAT `auto`: pretty lines for a person at a terminal, JSON lines for anything that
 * collects them (a file, a pipe, a log shipper).
 */
export const logFormatFor = (setting: 'auto' | LogFormat, isTerminal: boolean): LogFormat => (setting === 'auto' ? (isTerminal ? 'pretty' : 'json') : setting);

/** JSON logs (or pretty ones, for a terminal); credentials never reach them (headers, keys, secrets are redacted wherever they appear). */
export function createLogger(level: string, destination: 1 | 2 = 1, format: LogFormat = 'json'): Logger {
  const options = {
    level,
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        'headers.authorization',
        '*.apiKey',
        '*.key',
        '*.secret',
        '*.newSecret',
        '*.password',
        'key',
        'secret',
        'newSecret',
      ],
      censor: '[redacted]',
    },
  };
  // In-process pretty printing (no transport thread): what a terminal shows is what was logged, in order.
  if (format === 'pretty') return pino(options, pretty({ destination, sync: true, colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' }));
  return pino(options, pino.destination({ fd: destination, sync: destination === 2 }));
}

/**
 * Called right after the last lines: resolves once the JSON log has written them, or after `waitMs`. Its destination
 * writes asynchronously (a slow log reader must not stall requests), so a `process.exit` right
 * after the last lines could lose them, or, on a loaded machine, let a write still in flight land
 * after the lines pino flushes at exit: the log of a shutdown ended out of order. A stream that
 * writes synchronously (stderr, the pretty terminal output) has nothing pending.
 */
export function logsWritten(logger: Logger, waitMs: number): Promise<void> {
  const stream = (logger as unknown as Record<symbol, unknown>)[pino.symbols.streamSym] as { sync?: boolean; once(event: 'drain', listener: () => void): void } | undefined;
  if (stream?.sync !== false) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, waitMs);
    // Its last write is in flight or queued (nothing completes synchronously): 'drain' follows it.
    stream.once('drain', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
