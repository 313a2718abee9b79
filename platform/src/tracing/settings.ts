/**
 * OpenTelemetry tracing settings, read from the standard `OTEL_*` variables (the subset this
 * service honours; see the README's settings table). Tracing is off unless an exporter is asked
 * for: `OTEL_TRACES_EXPORTER=otlp`, or an OTLP endpoint (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`,
 * `OTEL_EXPORTER_OTLP_ENDPOINT`) with `OTEL_TRACES_EXPORTER` unset. `OTEL_SDK_DISABLED=true` and
 * `OTEL_TRACES_EXPORTER=none` turn it off whatever else is set.
 */
export type TraceSamplerName = 'always_on' | 'always_off' | 'traceidratio' | 'parentbased_always_on' | 'parentbased_always_off' | 'parentbased_traceidratio';

export interface TracingSettings {
  /** Where spans are POSTed as OTLP/HTTP JSON (the full URL, `…/v1/traces`). */
  endpoint: string;
  /** Extra request headers for the collector (`OTEL_EXPORTER_OTLP_[TRACES_]HEADERS`); often a credential, never logged. */
  headers: Readonly<Record<string, string>>;
  sampler: TraceSamplerName;
  /** The ratio of the `*traceidratio` samplers (0–1). */
  samplerRatio: number;
  serviceName: string;
  /** `OTEL_RESOURCE_ATTRIBUTES`, decoded. */
  resourceAttributes: Readonly<Record<string, string>>;
  /** Batch span processor: ms between exports, spans held at most (more are dropped), spans per export. */
  scheduleDelayMs: number;
  maxQueueSize: number;
  maxExportBatchSize: number;
  exportTimeoutMs: number;
}

const SAMPLERS: readonly TraceSamplerName[] = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'];

/** The OTLP/HTTP default when only `OTEL_TRACES_EXPORTER=otlp` is set. */
export const DEFAULT_OTLP_TRACES_ENDPOINT = 'http://localhost:4318/v1/traces';

type Str = (name: string) => string | undefined;
type Int = (name: string, fallback: number, min: number, max: number) => number;

/** `key=value,key=value` with percent-encoded values (the W3C Baggage-like form the OTEL_* lists use). */
function keyValueList(name: string, value: string | undefined, problems: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  if (value === undefined) return out;
  for (const item of value.split(',')) {
    if (item.trim() === '') continue;
    const at = item.indexOf('=');
    const key = at > 0 ? item.slice(0, at).trim() : '';
    if (!key) {
      problems.push(`${name} must be key=value pairs separated by commas`);
      return {};
    }
    try {
      out[key] = decodeURIComponent(item.slice(at + 1).trim());
    } catch {
      problems.push(`${name} has a value that is not valid percent-encoding (key "${key}")`);
      return {};
    }
  }
  return out;
}

function endpointUrl(name: string, value: string, problems: string[]): string | undefined {
  try {
    const url = new URL(value);
    if (url.protocol === 'http:' || url.protocol === 'https:') return value;
    problems.push(`${name} must be an http or https URL (got "${url.protocol}")`);
  } catch {
    // The value may carry a credential in its user part: only the variable is named.
    problems.push(`${name} is not a valid URL`);
  }
  return undefined;
}

/** `null` when tracing is off. `role` names the default service (`health-partner-<role>`). */
export function readTracingSettings(str: Str, int: Int, problems: string[], role: string): TracingSettings | null {
  const disabled = str('OTEL_SDK_DISABLED');
  if (disabled !== undefined && !['true', 'false'].includes(disabled.toLowerCase())) problems.push(`OTEL_SDK_DISABLED must be true or false (got "${disabled}")`);
  const exporters = (str('OTEL_TRACES_EXPORTER') ?? '')
    .split(',')
    .map((e) => e.trim().toLowerCase())
    .filter(Boolean);
  const unknown = exporters.filter((e) => e !== 'otlp' && e !== 'none');
  if (unknown.length > 0) problems.push(`OTEL_TRACES_EXPORTER must be otlp or none (got "${unknown.join(',')}")`);
  const protocol = str('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') ?? str('OTEL_EXPORTER_OTLP_PROTOCOL');
  if (protocol !== undefined && protocol !== 'http/json') problems.push(`OTEL_EXPORTER_OTLP_PROTOCOL must be http/json, the encoding this service exports (got "${protocol}")`);
  const tracesEndpoint = str('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const baseEndpoint = str('OTEL_EXPORTER_OTLP_ENDPOINT');
  const samplerText = (str('OTEL_TRACES_SAMPLER') ?? 'parentbased_always_on').toLowerCase();
  if (!(SAMPLERS as readonly string[]).includes(samplerText)) problems.push(`OTEL_TRACES_SAMPLER must be one of ${SAMPLERS.join(', ')} (got "${samplerText}")`);
  const ratioText = str('OTEL_TRACES_SAMPLER_ARG');
  const ratio = ratioText === undefined ? 1 : Number(ratioText);
  if (!Number.isFinite(ratio) || ratio < 0 || ratio > 1) problems.push(`OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1 (got "${ratioText}")`);
  const headers = keyValueList('OTEL_EXPORTER_OTLP_TRACES_HEADERS', str('OTEL_EXPORTER_OTLP_TRACES_HEADERS') ?? str('OTEL_EXPORTER_OTLP_HEADERS'), problems);
  const resourceAttributes = keyValueList('OTEL_RESOURCE_ATTRIBUTES', str('OTEL_RESOURCE_ATTRIBUTES'), problems);
  const batch = {
    scheduleDelayMs: int('OTEL_BSP_SCHEDULE_DELAY', 5000, 1, 600_000),
    maxQueueSize: int('OTEL_BSP_MAX_QUEUE_SIZE', 2048, 1, 1_000_000),
    maxExportBatchSize: int('OTEL_BSP_MAX_EXPORT_BATCH_SIZE', 512, 1, 1_000_000),
    exportTimeoutMs: int('OTEL_BSP_EXPORT_TIMEOUT', 30_000, 1, 600_000),
  };
  if (batch.maxExportBatchSize > batch.maxQueueSize) problems.push('OTEL_BSP_MAX_EXPORT_BATCH_SIZE must not exceed OTEL_BSP_MAX_QUEUE_SIZE');

  const on = disabled?.toLowerCase() !== 'true' && !exporters.includes('none') && (exporters.includes('otlp') || tracesEndpoint !== undefined || baseEndpoint !== undefined);
  if (!on) return null;
  let endpoint = DEFAULT_OTLP_TRACES_ENDPOINT;
  if (tracesEndpoint !== undefined) endpoint = endpointUrl('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', tracesEndpoint, problems) ?? endpoint;
  else if (baseEndpoint !== undefined) endpoint = `${(endpointUrl('OTEL_EXPORTER_OTLP_ENDPOINT', baseEndpoint, problems) ?? 'http://localhost:4318').replace(/\/+$/, '')}/v1/traces`;
  return {
    endpoint,
    headers,
    sampler: samplerText as TraceSamplerName,
    samplerRatio: Number.isFinite(ratio) ? Math.min(1, Math.max(0, ratio)) : 1,
    serviceName: str('OTEL_SERVICE_NAME') ?? resourceAttributes['service.name'] ?? `health-partner-${role.replace(':', '-')}`,
    resourceAttributes,
    ...batch,
  };
}
