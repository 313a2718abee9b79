import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Supergraph } from '@apollo/federation-internals';
import { Kind, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { ROUTES } from '../rest-facade/src/routes/table.js';

// Every Query and Mutation field a partner can call is run by some route of the REST table, so
// REST and GraphQL offer the same operations. A field without a route is an exception listed below with why.
// Subscriptions are not enumerated: they are a GraphQL transport with no REST meaning (webhooks are the REST push).

/** Fields a partner cannot call, or that have no REST meaning of their own. */
const EXCEPTIONS: Record<string, string> = {
  // Typed twins of the generic FHIR fields: REST serves the same reads as GET /fhir/R4/{type}[/{id}] (fhirRead, fhirSearch).
  'Query.fhir<Type>': 'typed GraphQL twins of fhirRead / fhirSearch, which GET /fhir/R4/{type}[/{id}] runs',
  'Query.fhirSharingRules': 'operators only (the resolver refuses partners)',
  'Mutation.fhirSharingRuleGrant': 'operators only (the resolver refuses partners)',
  'Mutation.fhirSharingRuleRevoke': 'operators only (the resolver refuses partners)',
  'Mutation.registerPartner': 'operators only (cms.admin)',
  'Mutation.createPortalAccount': 'operators only (cms.admin)',
  'Mutation.rotateSigningKey': 'operators only (cms.admin)',
  'Query.partnerApplications': 'reviewers only (cms.admin)',
  'Mutation.approvePartnerApplication': 'reviewers only (cms.admin)',
  'Mutation.rejectPartnerApplication': 'reviewers only (cms.admin)',
  'Mutation.returnPartnerApplication': 'reviewers only (cms.admin)',
};

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** `Query.x` / `Mutation.x` for every root field of the documents a route may run. */
function rootFieldsOf(documents: readonly string[]): string[] {
  return documents.flatMap((text) =>
    parse(text).definitions.flatMap((d) =>
      d.kind === Kind.OPERATION_DEFINITION && d.operation !== 'subscription'
        ? d.selectionSet.selections.flatMap((s) => (s.kind === Kind.FIELD ? [`${d.operation === 'query' ? 'Query' : 'Mutation'}.${s.name.value}`] : []))
        : [],
    ),
  );
}

function documentsOf(operation: (typeof ROUTES)[number]['operation']): readonly string[] {
  if ('local' in operation) return operation.documents ?? [];
  return typeof operation.document === 'string' ? [operation.document] : (operation.documents ?? []);
}

/** The exception key of a field: the typed FHIR fields share one entry. */
function exceptionKey(field: string): string {
  return /^Query\.fhir(?!Read$|Vread$|History$|Search$|CapabilityStatement$|Export|Sync|PatientMatch$|SharingRules$)[A-Z]/.test(field) ? 'Query.fhir<Type>' : field;
}

describe('REST routes for GraphQL operations', () => {
  const api = Supergraph.build(readFileSync(`${ROOT}supergraph.graphql`, 'utf8')).apiSchema().toGraphQLJSSchema();
  const rootFields = [api.getQueryType(), api.getMutationType()].flatMap((type) => (type ? Object.keys(type.getFields()).map((name) => `${type.name}.${name}`) : []));
  const served = new Set(ROUTES.flatMap((route) => rootFieldsOf(documentsOf(route.operation))));

  it('every route that chooses its document lists the documents it may choose', () => {
    const undeclared = ROUTES.filter((r) => !('local' in r.operation) && typeof r.operation.document === 'function' && !r.operation.documents?.length).map((r) => r.id);
    expect(undeclared).toEqual([]);
  });

  it('every Query and Mutation field a partner can call is run by a route, or is listed with a reason', () => {
    const uncovered = rootFields.filter((field) => !served.has(field) && !(exceptionKey(field) in EXCEPTIONS));
    expect(uncovered).toEqual([]);
  });

  it('lists only fields that exist and have no route, so the lists stay honest', () => {
    const existing = new Set(rootFields.map(exceptionKey));
    const listed = Object.keys(EXCEPTIONS);
    expect(listed.filter((field) => !existing.has(field))).toEqual([]);
    expect(listed.filter((field) => served.has(field))).toEqual([]);
    for (const reason of Object.values(EXCEPTIONS)) expect(reason.length).toBeGreaterThan(10);
  });

  it('serves the webhook, sync job, event, TEFCA directory, identity registry, certification and application operations', () => {
    for (const field of [
      'Mutation.sendWebhookTestPing',
      'Mutation.redeliverWebhookDelivery',
      'Mutation.rotateWebhookSecret',
      'Mutation.enableWebhook',
      'Query.webhook',
      'Query.webhookDelivery',
      'Query.webhookEventTypes',
      'Mutation.createSyncJob',
      'Mutation.completeSyncJob',
      'Mutation.failSyncJob',
      'Query.syncJob',
      'Query.events',
      'Query.event',
      'Query.eventReplay',
      'Query.tefcaCommunities',
      'Query.tefcaExchange',
      'Query.identityEntityTypes',
      'Query.identityAuditEntries',
      'Query.identityAuditVerification',
      'Query.identityChangeRequests',
      'Query.identityChangeRequest',
      'Query.certificationChecklists',
      'Query.partnerApplication',
      'Mutation.startPartnerApplication',
      'Mutation.savePartnerApplicationStep',
      'Mutation.submitPartnerApplication',
    ]) {
      expect(served.has(field), field).toBe(true);
    }
  });
});
