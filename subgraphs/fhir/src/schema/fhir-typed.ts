import type { ObjectRef, SchemaTypes } from '@pothos/core';
import { getDataType, type InternalTypeSchema } from '@medplum/core';
import {
  connectionType,
  DomainError,
  pageSize,
  type Page,
  type SubgraphBuilder,
  type SubgraphContext,
  type SubgraphServices,
} from '@svc/platform';
import { definitions } from '../domain/definitions.js';
import { numericView } from '../domain/exact-json.js';
import { queryFromString, read, requestCall, search, type FhirCall } from '../domain/interactions.js';
import { readEventLogOf } from './read-event-log.js';

/**
 * Typed GraphQL for the resource types portals use most, generated at schema-build time from the
 * R4 StructureDefinitions (as Medplum builds its GraphQL schema), never written by hand:
 * - each resource type is `Fhir<Type>` with its elements as fields and `resource: JSONObject!`,
 *   the whole resource;
 * - primitives are scalars (boolean → Boolean, integer/positiveInt/unsignedInt → Int,
 *   decimal → Float, every other primitive → String, the resource id → ID);
 * - complex datatypes (HumanName, CodeableConcept, Reference, …) are `Fhir<Datatype>` types
 *   generated once, only those the listed resources reach;
 * - backbone elements are nested types named as Medplum names them (`FhirPatientContact`);
 * - a choice element `value[x]` is one field per allowed type (`valueQuantity`, `valueString`…);
 * - `extension`, `modifierExtension` and `contained` stay JSON (their content is open-ended).
 * Query fields `fhir<Type>(id)` and `fhir<Type>s(params, first, after)` call the same domain
 * functions (read, search) as fhirRead and fhirSearch, so scopes, tenancy and events are identical.
 * Writes stay the generic JSON mutations (fhirCreate, fhirUpdate, fhirBundle).
 */
export const TYPED_RESOURCE_TYPES = [
  'Patient',
  'Practitioner',
  'PractitionerRole',
  'Organization',
  'Location',
  'Encounter',
  'Observation',
  'Condition',
  'Procedure',
  'MedicationRequest',
  'MedicationStatement',
  'Medication',
  'AllergyIntolerance',
  'Immunization',
  'DiagnosticReport',
  'DocumentReference',
  'Coverage',
  'Claim',
  'ClaimResponse',
  'ExplanationOfBenefit',
  'CarePlan',
  'CareTeam',
  'Goal',
  'ServiceRequest',
  'Appointment',
  'Device',
  'RelatedPerson',
  'Consent',
  'Provenance',
] as const;

type Types = SubgraphBuilder extends PothosSchemaTypes.SchemaBuilder<infer X extends SchemaTypes> ? X : never;
type Json = Record<string, unknown>;
type Ref = ObjectRef<Types, Json>;
export type TypedResourceRef = Ref;
type FieldType = Ref | 'String' | 'Int' | 'Float' | 'Boolean' | 'ID' | 'JSONObject';

const SCALARS: Record<string, FieldType> = {
  boolean: 'Boolean',
  integer: 'Int',
  positiveInt: 'Int',
  unsignedInt: 'Int',
  decimal: 'Float',
};
/** Types kept as JSON: open-ended content (extensions, contained resources). */
const AS_JSON = new Set(['Extension', 'Resource']);
/** Search parameters that would fight the connection's own paging and shape. */
const PAGING_PARAMS = ['_count', '_offset', '_cursor', '_summary', '_elements', '_include', '_revinclude', '_total', '_contained', '_containedType'];

const capitalize = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);
const isPrimitive = (code: string): boolean => code.startsWith('http://hl7.org/fhirpath/System.') || /^[a-z]/.test(code);

function scalarOf(code: string): FieldType {
  if (code.startsWith('http://hl7.org/fhirpath/System.')) {
    const system = code.slice('http://hl7.org/fhirpath/System.'.length);
    return system === 'Boolean' ? 'Boolean' : system === 'Integer' ? 'Int' : system === 'Decimal' ? 'Float' : 'String';
  }
  return SCALARS[code] ?? 'String';
}

/** Define the typed resource types, their query fields and their search connections. */
/** Defines the typed resources; answers their object types by resource type (`Patient` → `FhirPatient`), for extensions. */
export function defineTypedFhir(builder: SubgraphBuilder, services: SubgraphServices): ReadonlyMap<string, TypedResourceRef> {
  definitions();
  const refs = new Map<string, Ref>();

  const fieldsOf = (schema: InternalTypeSchema, isResource: boolean) => (t: PothosSchemaTypes.ObjectFieldBuilder<Types, Json>) => {
    const fields: Record<string, ReturnType<typeof t.field>> = {};
    const add = (name: string, type: FieldType, list: boolean, required: boolean) => {
      if (name in fields || name === 'resource') throw new Error(`Typed FHIR schema: ${schema.name}.${name} is defined twice.`);
      const resolve = (o: Json) => (o[name] ?? null) as never;
      fields[name] = list
        ? t.field({ type: [type] as never, nullable: { list: true, items: false } as never, resolve })
        : t.field({ type: type as never, nullable: !required, resolve });
    };
    for (const [key, element] of Object.entries(schema.elements)) {
      if (key.includes('.')) continue;
      const choices = element.type ?? [];
      const list = element.isArray === true || element.max === Number.POSITIVE_INFINITY || (element.max ?? 1) > 1;
      for (const choice of choices) {
        const name = key.endsWith('[x]') ? key.slice(0, -3) + capitalize(choice.code) : key;
        if (isResource && key === 'id') {
          add('id', 'ID', false, true);
          continue;
        }
        add(name, typeOf(choice.code), list, false);
      }
    }
    if (isResource) fields.resource = t.field({ type: 'JSONObject', description: 'The whole resource, as stored (every element, extensions included).', resolve: (o) => o });
    return fields;
  };

  /** The GraphQL type of a FHIR type code: a scalar, JSON, or a generated object type (once). */
  function typeOf(code: string): FieldType {
    if (AS_JSON.has(code)) return 'JSONObject';
    if (code === 'xhtml') return 'String';
    if (isPrimitive(code)) return scalarOf(code);
    const existing = refs.get(code);
    if (existing) return existing;
    let schema: InternalTypeSchema;
    try {
      schema = getDataType(code);
    } catch {
      return 'JSONObject';
    }
    const ref = builder.objectRef<Json>(`Fhir${code}`);
    refs.set(code, ref);
    ref.implement({ description: `FHIR R4 ${code} (generated from its definition).`, fields: fieldsOf(schema, false) });
    return ref;
  }

  const fhirBase = `${services.runtime.config.publicUrl}/fhir/R4`;
  const reads = readEventLogOf(services);
  const call = (ctx: SubgraphContext): FhirCall => requestCall(ctx, { principal: ctx.principal, requestId: ctx.requestId, source: null, fhirBase, reads });

  for (const type of TYPED_RESOURCE_TYPES) {
    const schema = getDataType(type);
    const ref = builder.objectRef<Json>(`Fhir${type}`);
    refs.set(type, ref);
    ref.implement({ description: `FHIR R4 ${type}, typed from its StructureDefinition; \`resource\` is the whole resource as JSON.`, fields: fieldsOf(schema, true) });
    const connection = connectionType(builder, `Fhir${type}`, ref);
    builder.queryFields((t) => ({
      [`fhir${type}`]: t.field({
        type: ref,
        nullable: true,
        description: `Read one ${type} (as fhirRead): null when it does not exist, was deleted, or belongs to another partner.`,
        authScopes: { authenticated: true },
        args: { id: t.arg.id({ required: true }) },
        resolve: async (_r, a, ctx) => {
          try {
            // GraphQL Float and JSON carry numbers: exact literals (125.00) are read as the numbers they denote.
            return (numericView((await read(call(ctx), type, String(a.id))).resource) as Json | null) ?? null;
          } catch (err) {
            if (err instanceof DomainError && (err.code === 'NOT_FOUND' || err.code === 'GONE')) return null;
            throw err;
          }
        },
      }),
      [`fhir${type}s`]: t.field({
        type: connection,
        description: `Search ${type} (as fhirSearch): \`params\` is the FHIR query string (name[:modifier]=value&…, _sort allowed); paging is first/after.`,
        authScopes: { authenticated: true },
        args: { params: t.arg.string({ defaultValue: '' }), first: t.arg.int({ defaultValue: 20 }), after: t.arg.string() },
        resolve: async (_r, a, ctx) => searchPage(ctx, type, a.params ?? '', a.first, a.after),
      }),
    }));
  }

  async function searchPage(ctx: SubgraphContext, type: string, params: string, first: number | null | undefined, after: string | null | undefined): Promise<Page<Json>> {
    const size = pageSize(first);
    const query = queryFromString(params);
    const refused = Object.keys(query).filter((k) => PAGING_PARAMS.includes(k.split(':')[0] ?? k));
    if (refused.length > 0) {
      throw new DomainError('BAD_REQUEST', `params: ${refused.join(', ')} cannot be used here; page with first and after.`, {
        fieldErrors: refused.map((field) => ({ field, message: 'not allowed in a typed search' })),
      });
    }
    query._count = [String(size)];
    // `after` is the same keyset cursor as the REST `_cursor` (the position of the edge's node).
    if (after !== null && after !== undefined) {
      if (!/^[A-Za-z0-9_-]{1,4096}$/.test(after)) throw new DomainError('BAD_REQUEST', 'after: not a cursor of this connection.', { fieldErrors: [{ field: 'after', message: 'is not a cursor this API issued' }] });
      query._cursor = [after];
    }
    const outcome = await search(call(ctx), type, query, false).catch((error: unknown) => {
      if (error instanceof DomainError && error.code === 'BAD_REQUEST' && error.message.includes('_cursor')) {
        throw new DomainError('BAD_REQUEST', 'after: not a cursor of this connection (or made for another _sort).', { fieldErrors: [{ field: 'after', message: 'is not a cursor this API issued' }] });
      }
      throw error;
    });
    const bundle = numericView(outcome.resource) as { entry?: { resource: Json; search?: { mode?: string } }[]; link?: { relation: string }[] };
    const nodes = (bundle.entry ?? []).map((e) => e.resource);
    const cursors = outcome.cursors ?? [];
    const edges = nodes.map((node, i) => ({ cursor: cursors[i] ?? '', node }));
    return { edges, pageInfo: { hasNextPage: (bundle.link ?? []).some((l) => l.relation === 'next'), endCursor: edges.at(-1)?.cursor ?? null } };
  }
  return refs;
}
