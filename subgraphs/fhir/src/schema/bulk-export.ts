import type { SubgraphBuilder, SubgraphContext, SubgraphServices } from '@svc/platform';
import { cancelExport, exportChunk, exportStatus, kickoff, type ExportStatus } from '../domain/bulk-export.js';
import type { FhirCall } from '../domain/interactions.js';

/** Lets a kick-off wake this process's export worker (set once the worker runs). */
export interface ExportWakeup {
  wake?: () => void;
}

/** Bulk Data $export as gateway operations; the REST facade's /fhir/R4/$export routes call these. */
export function defineBulkExport(builder: SubgraphBuilder, services: SubgraphServices, wakeup: ExportWakeup) {
  const fhirBase = `${services.runtime.config.publicUrl}/fhir/R4`;
  const call = (ctx: SubgraphContext): FhirCall => ({ em: ctx.em, principal: ctx.principal, requestId: ctx.requestId, source: null, fhirBase });

  const Status = builder.objectRef<ExportStatus>('FhirExportStatus').implement({
    description: 'Where a Bulk Data export job stands.',
    fields: (t) => ({
      state: t.exposeString('state', { description: 'in-progress, completed or failed.' }),
      progress: t.exposeString('progress', { nullable: true, description: 'X-Progress while in progress.' }),
      manifest: t.field({ type: 'JSONObject', nullable: true, description: 'The completion manifest.', resolve: (s) => s.manifest }),
      error: t.exposeString('error', { nullable: true }),
    }),
  });
  const Chunk = builder.objectRef<{ seq: number; data: string }>('FhirExportChunk').implement({
    description: 'One chunk of an NDJSON output file (a page of resources).',
    fields: (t) => ({ seq: t.exposeInt('seq'), data: t.exposeString('data') }),
  });

  builder.queryFields((t) => ({
    fhirExportStatus: t.field({
      type: Status,
      description: "Status of one of the caller's partner's $export jobs (404 for any other).",
      authScopes: { authenticated: true },
      args: { jobId: t.arg.id({ required: true }) },
      resolve: (_r, a, ctx) => exportStatus(call(ctx), String(a.jobId)),
    }),
    fhirExportChunk: t.field({
      type: Chunk,
      nullable: true,
      description: 'The chunk after `afterSeq` (-1: the first) of an output file of a completed export; null past the end.',
      authScopes: { authenticated: true },
      args: { jobId: t.arg.id({ required: true }), file: t.arg.string({ required: true }), afterSeq: t.arg.int({ required: true }) },
      resolve: (_r, a, ctx) => exportChunk(call(ctx), String(a.jobId), a.file, a.afterSeq),
    }),
  }));

  builder.mutationFields((t) => ({
    fhirExportKickoff: t.field({
      type: 'String',
      description: 'Bulk Data $export kick-off (system, patient or group level): records a durable job and answers its status URL.',
      authScopes: { authenticated: true },
      args: {
        level: t.arg.string({ required: true }),
        groupId: t.arg.id(),
        query: t.arg.string({ defaultValue: '' }),
        requestPath: t.arg.string({ required: true, description: 'The kick-off URL relative to the FHIR base, for the manifest.' }),
        respondAsync: t.arg.boolean({ required: true }),
        lenient: t.arg.boolean({ defaultValue: false }),
        parameters: t.arg({ type: 'JSONObject', description: 'POST kick-off: the Parameters resource of the body (_type, _since, _outputFormat, _typeFilter).' }),
      },
      resolve: async (_r, a, ctx) => {
        const level = a.level === 'patient' || a.level === 'group' ? a.level : 'system';
        const { statusUrl } = await kickoff(call(ctx), { level, groupId: a.groupId ? String(a.groupId) : null, query: a.query ?? '', requestPath: a.requestPath, respondAsync: a.respondAsync, lenient: a.lenient ?? false, parameters: a.parameters ?? undefined });
        wakeup.wake?.();
        return statusUrl;
      },
    }),
    fhirExportCancel: t.field({
      type: 'Boolean',
      description: 'DELETE on the status URL: stop the job and delete its files.',
      authScopes: { authenticated: true },
      args: { jobId: t.arg.id({ required: true }) },
      resolve: async (_r, a, ctx) => {
        await cancelExport(call(ctx), String(a.jobId));
        return true;
      },
    }),
  }));
}
