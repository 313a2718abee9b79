import { pino, type Logger } from 'pino';
import type { Config } from './config.js';

export type { Logger };

/** The process logger: JSON lines to stdout, secrets redacted wherever they appear. */
export function createLogger(config: Pick<Config, 'logLevel' | 'role'>): Logger {
  return pino({
    level: config.logLevel,
    base: { role: config.role },
    redact: {
      paths: ['req.headers.authorization', 'headers.authorization', '*.client_secret', '*.password', '*.portal_password', '*.secret'],
      censor: '[redacted]',
    },
  });
}
