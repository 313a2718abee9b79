import { pino, type DestinationStream, type Logger } from 'pino';
import type { Config } from './config.js';
import { redactUrl } from './log-redaction.js';

export type { Logger, DestinationStream };

/** Headers that carry credentials: never written, wherever a header object is logged. */
const SECRET_HEADERS = ['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-svc-principal', 'x-svc-resume-token'];
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

const LOG_METHODS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const REAL = Symbol('deferred child: the logger once made');
const BINDINGS = Symbol('deferred child: its bindings');
interface Deferred {
  [REAL]?: Logger;
  [BINDINGS]: Record<string, unknown>;
  parentLogger: Logger;
}
const deferredPrototypes = new WeakMap<Logger, object>();

function realChild(self: Deferred): Logger {
  return (self[REAL] ??= self.parentLogger.child(self[BINDINGS]));
}

/**
 * `parent.child(bindings)`, made only when something is logged through it. A pino child costs a
 * redaction pass over its bindings and a copy of the level methods, on every request for Fastify's
 * per-request logger; a server that logs only what goes wrong (a subgraph's) seldom uses it.
 * Levels, serializers and redaction are the parent's, as for a plain child. A deferred child of a
 * deferred child is one deferred child of the grandparent with both bindings (the later win).
 */
export function deferredChild(parent: Logger, bindings: Record<string, unknown>): Logger {
  const deferredParent = parent as unknown as Partial<Deferred>;
  if (deferredParent[BINDINGS]) return deferredChild(deferredParent.parentLogger!, { ...deferredParent[BINDINGS], ...bindings });
  let proto = deferredPrototypes.get(parent);
  if (!proto) {
    const methods: PropertyDescriptorMap = {
      parentLogger: { value: parent },
      child: { value: function (this: Deferred, ...args: Parameters<Logger['child']>) { return realChild(this).child(...args); } },
      bindings: { value: function (this: Deferred) { return realChild(this).bindings(); } },
    };
    for (const m of LOG_METHODS) {
      methods[m] = {
        value: function (this: Deferred, ...args: unknown[]) {
          // A line the level drops makes no child: Fastify logs every request at info.
          if (!this[REAL] && !parent.isLevelEnabled(m)) return;
          return (realChild(this)[m] as (...a: unknown[]) => void)(...args);
        },
      };
    }
    proto = Object.create(parent, methods) as object;
    deferredPrototypes.set(parent, proto);
  }
  const child = Object.create(proto) as Deferred;
  child[BINDINGS] = bindings;
  return child as unknown as Logger;
}

/**
 * Fastify's `childLoggerFactory` for a server's per-request loggers: a deferred child, made on the
 * first line logged through it (a child asked for with options of its own is made at once).
 */
export function deferredRequestLogger(parent: Logger, bindings: Record<string, unknown>, opts: object): Logger {
  return Object.keys(opts).length > 0 ? parent.child(bindings, opts) : deferredChild(parent, bindings);
}
