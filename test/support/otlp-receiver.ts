import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One exported span, flattened from OTLP/HTTP JSON (`resourceSpans[].scopeSpans[].spans[]`). */
export interface ExportedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
  arrayValue?: { values?: OtlpValue[] };
}
interface OtlpKeyValue {
  key: string;
  value: OtlpValue;
}
interface OtlpExport {
  resourceSpans?: {
    resource?: { attributes?: OtlpKeyValue[] };
    scopeSpans?: { spans?: { traceId: string; spanId: string; parentSpanId?: string; name: string; kind: number; attributes?: OtlpKeyValue[] }[] }[];
  }[];
}

const valueOf = (v: OtlpValue): unknown => v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : undefined) ?? v.boolValue ?? v.doubleValue ?? v.arrayValue?.values?.map(valueOf);
const attributesOf = (list: OtlpKeyValue[] | undefined) => Object.fromEntries((list ?? []).map((a) => [a.key, valueOf(a.value)]));

/**
 * An OTLP/HTTP trace receiver, as a collector's: it accepts `POST /v1/traces` in the JSON
 * encoding and keeps every request body as it came (to search for what must not be there) and
 * every span, flattened.
 */
export class OtlpReceiver {
  readonly bodies: string[] = [];
  readonly spans: ExportedSpan[] = [];
  private readonly server: Server;

  constructor() {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if (req.method !== 'POST' || req.url !== '/v1/traces' || !String(req.headers['content-type']).startsWith('application/json')) {
          res.writeHead(404).end();
          return;
        }
        this.bodies.push(text);
        const body = JSON.parse(text) as OtlpExport;
        for (const rs of body.resourceSpans ?? []) {
          const service = String(attributesOf(rs.resource?.attributes)['service.name']);
          for (const ss of rs.scopeSpans ?? []) {
            for (const s of ss.spans ?? []) {
              this.spans.push({ service, traceId: s.traceId, spanId: s.spanId, ...(s.parentSpanId ? { parentSpanId: s.parentSpanId } : {}), name: s.name, kind: s.kind, attributes: attributesOf(s.attributes) });
            }
          }
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
  }

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1/traces`;
  }

  /** The spans of one trace. */
  trace(traceId: string): ExportedSpan[] {
    return this.spans.filter((s) => s.traceId === traceId);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** Whether `span` descends from `ancestor` within `spans` (following parent ids). */
export function descendsFrom(spans: readonly ExportedSpan[], span: ExportedSpan, ancestor: ExportedSpan): boolean {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  for (let at: ExportedSpan | undefined = span; at?.parentSpanId; ) {
    if (at.parentSpanId === ancestor.spanId) return true;
    at = byId.get(at.parentSpanId);
  }
  return false;
}
