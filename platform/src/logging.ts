import { pino, type DestinationStream, type Logger } from 'pino';
import type { Config } from './config.js';
import { redactUrl } from './log-redaction.js';

export type { Logger, DestinationStream };

/** Headers that carry credentials: never written, wherever a header object is logged. */
const SECRET_HEADERS = ['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-svc-principal'];
/** Body and object fields that carry credentials, at the top level and one or two levels down. */
const SECRET_FIELDS = [
  'access_token',
  'refresh_token',
  'id_token',
  'client_secret',
  'client_assertion',
  'password',
  'portal_password',
  'new_password',
  'current_password',
  'secret',
  'resume_token',
  'resumeToken',
  'token',
];

function redactPaths(): string[] {
  const paths: string[] = [];
  for (const h of SECRET_HEADERS) {
    const key = /^[a-z]+$/.test(h) ? `.${h}` : `["${h}"]`;
    for (const prefix of ['headers', 'req.headers', 'request.headers', '*.headers']) paths.push(`${prefix}${key}`);
  }
  for (const f of SECRET_FIELDS) paths.push(f, `*.${f}`, `*.*.${f}`);
  return paths;
}

/** What a request looks like in a log line: never its headers or body, and its URL with credentials redacted. */
function serializeRequest(req: { method?: string; url?: string; host?: string; ip?: string; hostname?: string; socket?: { remotePort?: number } | null }) {
  return {
    method: req.method,
    url: req.url === undefined ? undefined : redactUrl(req.method, req.url),
    host: req.host ?? req.hostname,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}

/**
 * The process logger: JSON lines to stdout (or `destination`), secrets redacted wherever they
 * appear. Credential headers and body fields are censored by path (pino's `redact`); request URLs
 * go through the request serializer, which Fastify uses for every request line: sensitive query
 * parameters are censored, and the whole query string of a GET /graphql (its variables may hold a
 * password).
 */
export function createLogger(config: Pick<Config, 'logLevel' | 'role'>, destination?: DestinationStream): Logger {
  const options = {
    level: config.logLevel,
    base: { role: config.role },
    redact: { paths: redactPaths(), censor: '[redacted]' },
    serializers: { req: serializeRequest },
  };
  return destination ? pino(options, destination) : pino(options);
}
