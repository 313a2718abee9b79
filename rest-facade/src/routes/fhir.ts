import { capabilityRoute } from '@svc/platform';
import type { RouteSpec } from './route.js';

const READ = ['cms.fhir.r4.read', 'patient/Patient.read'];

/** The spec's "FHIR R4" table, under the base /fhir/R4. */
export const fhirRoutes: RouteSpec[] = [
  {
    id: 'fhir.metadata',
    method: 'GET',
    path: '/fhir/R4/metadata',
    ...capabilityRoute('fhir.metadata'),
    summary: 'CapabilityStatement: supported types and interactions',
    auth: 'none',
    scopes: [],
    successStatus: 200,
    format: 'fhir',
    operation: { document: 'query Metadata { fhirCapabilityStatement }', result: (data) => data['fhirCapabilityStatement'] },
  },
  { id: 'fhir.smart-configuration', method: 'GET', path: '/fhir/R4/.well-known/smart-configuration', product: 'fhir', summary: 'SMART on FHIR OAuth discovery', auth: 'none', scopes: [], successStatus: 200, format: 'fhir' },
  { id: 'fhir.export', method: 'GET', path: '/fhir/R4/$export', product: 'fhir', summary: 'Bulk data export, an asynchronous job (system/*.read scope)', auth: 'bearer', scopes: ['system/*.read', 'system/Patient.read'], successStatus: 202, format: 'fhir' },
  { id: 'fhir.search', method: 'GET', path: '/fhir/R4/{resourceType}', product: 'fhir', summary: 'Search with FHIR search parameters', auth: 'bearer', scopes: READ, successStatus: 200, format: 'fhir' },
  { id: 'fhir.read', method: 'GET', path: '/fhir/R4/{resourceType}/{id}', product: 'fhir', summary: 'Read one resource by logical id', auth: 'bearer', scopes: READ, successStatus: 200, format: 'fhir' },
  { id: 'fhir.create', method: 'POST', path: '/fhir/R4/{resourceType}', product: 'fhir', summary: 'Create a resource (write scope required)', auth: 'bearer', scopes: ['cms.fhir.rest.write'], successStatus: 201, format: 'fhir' },
  { id: 'fhir.update', method: 'PUT', path: '/fhir/R4/{resourceType}/{id}', product: 'fhir', summary: 'Update an existing resource', auth: 'bearer', scopes: ['cms.fhir.rest.write'], successStatus: 200, format: 'fhir' },
  { id: 'fhir.bundle', method: 'POST', path: '/fhir/R4', product: 'fhir', summary: 'Submit a transaction or batch Bundle', auth: 'bearer', scopes: ['cms.fhir.bundle.push', 'system/*.write'], successStatus: 200, format: 'fhir' },
];
