import { DomainError, isSourceOrigin, SOURCE_ORIGINS, validationError, type Principal, type SubgraphBuilder } from '@svc/platform';
import type { DemographicsInput, DemographicWarning, MatchCandidate, MatchResult, ResolveResult, SourceOrigin } from '../domain/index.js';
import type { IdentityService } from '../identity-service.js';
import type { IdentityEnums, IdentityLoaders, IdentityTypeRef } from './identity.js';

interface DemographicsArgs {
  name?: string | null;
  nameParts?: { given?: string | null; middle?: string | null; family?: string | null } | null;
  dob?: string | null;
  email?: string | null;
  phone?: string | null;
  emails?: readonly string[] | null;
  phones?: readonly string[] | null;
  sex?: string | null;
  previousNames?: readonly string[] | null;
  address?: AddressArgs | null;
  addresses?: readonly AddressArgs[] | null;
  identifiers?: ReadonlyArray<{ system?: string | null; value?: string | null; assigner?: string | null; type?: string | null; verified?: boolean | null }> | null;
  entityType?: string | null;
}

interface AddressArgs {
  lines?: readonly string[] | null;
  city?: string | null;
  state?: string | null;
  postalCode?: string | null;
  country?: string | null;
}

/** Drops null members, so the domain sees what REST sends (absent, not null). */
function present<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null && v !== undefined)) as Partial<T>;
}

/** The GraphQL address as the domain's (REST spelling: postal_code). */
function addressOf(a: AddressArgs): Record<string, unknown> {
  const { postalCode, ...rest } = a;
  return present({ ...rest, postal_code: postalCode });
}

/** The GraphQL input as the domain's demographics (name as text or as parts, not both). */
function demographicsOf(input: DemographicsArgs): DemographicsInput {
  if (input.name && input.nameParts) throw validationError([{ field: 'name', message: 'give either name (text) or nameParts, not both' }]);
  const parts = input.nameParts
    ? Object.fromEntries(Object.entries(input.nameParts).filter(([, v]) => v !== null && v !== undefined))
    : null;
  return {
    name: parts ?? input.name ?? null,
    dob: input.dob ?? null,
    email: input.email ?? null,
    phone: input.phone ?? null,
    emails: input.emails ?? null,
    phones: input.phones ?? null,
    sex: input.sex ?? null,
    previous_names: input.previousNames ?? null,
    address: input.address ? addressOf(input.address) : null,
    addresses: input.addresses ? input.addresses.map(addressOf) : null,
    identifiers: input.identifiers ? input.identifiers.map((id) => present({ ...id })) : null,
  };
}

/**
 * The Service credential class of match and resolve, enforced here as on the REST facade: a
 * service principal (platform operated) or an OAuth client_credentials access token.
 */
export function assertServiceCredential(principal: Principal): void {
  if (principal.kind !== 'service' && principal.clientId === undefined) {
    throw new DomainError('FORBIDDEN', 'Identity match and resolve require a service credential: an OAuth client_credentials access token.');
  }
}

/** The `source` argument: one of the 8 origins (the X-Svc-Source header on REST). */
export function sourceArg(source: string): SourceOrigin {
  if (!isSourceOrigin(source)) throw validationError([{ field: 'source', message: `must be one of ${SOURCE_ORIGINS.join(', ')}` }]);
  return source;
}

const STRICT_DESCRIPTION = 'Refuse an invalid optional field (email, phone, sex, address, identifier) with VALIDATION_ERROR naming the field instead of dropping it with a warning. Default false.';

/** identityMatch (query only) and resolveIdentity. */
export function defineMatchAndResolve(builder: SubgraphBuilder, service: IdentityService, loaders: IdentityLoaders, enums: IdentityEnums, IdentityType: IdentityTypeRef) {
  const NameParts = builder.inputType('IdentityNamePartsInput', {
    description: 'A structured name.',
    fields: (t) => ({ given: t.string(), middle: t.string(), family: t.string() }),
  });
  const Address = builder.inputType('IdentityAddressInput', {
    description: 'A postal address, compared in USPS standard form (street suffixes and unit designators abbreviated, ZIP on 5 digits).',
    fields: (t) => ({
      lines: t.stringList({ description: 'Street lines (1 to 3), with the unit ("Apt 4B", "# 4B").' }),
      city: t.string(),
      state: t.string({ description: 'US: the USPS code (MA) or the name (Massachusetts).' }),
      postalCode: t.string({ description: 'US: 12345 or 12345-6789 (compared on 5 digits). Required unless city (and, in the US, state) are given.' }),
      country: t.string({ description: 'ISO 3166-1 alpha-2; default US.' }),
    }),
  });
  const Identifier = builder.inputType('IdentityIdentifierInput', {
    description:
      'An identifier with its system (or a v2-0203 type). Equal values of one system (and assigner) are strong evidence; a value one substitution or transposition away (or an NPI failing its check digit) is a probable keying error; any other value of one system, or a keying error on a verified identifier, never links automatically.',
    fields: (t) => ({
      system: t.string({
        description:
          'ssn, mrn, drivers_license, insurance_member_id, passport, national_id, npi; or a system URI (http://hl7.org/fhir/sid/us-ssn, http://hl7.org/fhir/sid/us-npi, urn:oid:2.16.840.1.113883.4.3.<state FIPS> for a driver\'s licence, http://hl7.org/fhir/sid/passport-<alpha-3>). Any other URI is an opaque system: only equal values of that very system agree.',
      }),
      type: t.string({ description: 'A v2-0203 identifier type code (SS, NPI, DL, MR, MB, SN, PPN, NI): the registry system of an identifier whose system URI it does not know (that URI is then the number space of an MRN or member id).' }),
      verified: t.boolean({ description: 'True: the source checked the value against a document or an authority; a different value of that system then never links automatically, even one keystroke away.' }),
      value: t.string({ description: 'Compared as letters and digits (spaces, dashes, dots, slashes ignored).' }),
      assigner: t.string({ description: 'mrn: the assigning authority; drivers_license: the issuing US state; insurance_member_id: the payer; passport and national_id: the issuing country (alpha-3: USA, CAN); none for ssn.' }),
    }),
  });
  const Demographics = builder.inputType('IdentityDemographicsInput', {
    description:
      'Demographics to match or resolve. At least one identifying field; resolve needs a name, or an identifier, or dob with an email, phone or address. Never stored in clear: only keyed fingerprints.',
    fields: (t) => ({
      name: t.string({ description: 'Free text: "Given Middle Family" or "Family, Given Middle".' }),
      nameParts: t.field({ type: NameParts, description: 'The name as parts (instead of name).' }),
      dob: t.string({ description: 'Date of birth: ISO 8601 (1980-03-04) or a common written form; ambiguous numeric dates read as MM/DD/YYYY.' }),
      email: t.string(),
      phone: t.string({ description: 'Any common format; national numbers are read as US.' }),
      emails: t.stringList({ description: 'More e-mail addresses (with email, at most 5).' }),
      phones: t.stringList({ description: 'More phone numbers (with phone, at most 5).' }),
      sex: t.string({ description: 'Administrative sex: male, female, other or unknown.' }),
      previousNames: t.stringList({ description: 'Earlier names (maiden name …), free text like name; at most 5.' }),
      address: t.field({ type: Address }),
      addresses: t.field({ type: [Address], description: 'More addresses (with address, at most 5).' }),
      identifiers: t.field({ type: [Identifier], description: 'At most 10.' }),
      entityType: t.string({ description: 'One of the 22 entity types (identityEntityTypes); default patient.' }),
    }),
  });

  const Candidate = builder.objectRef<MatchCandidate>('IdentityCandidate').implement({
    description: 'A registry record that may be the subject, with its confidence.',
    fields: (t) => ({
      gpid: t.exposeID('gpid'),
      confidence: t.exposeFloat('confidence', { description: 'Probability in [0, 1] that this record is the subject, competing with the other candidates.' }),
      matchType: t.field({ type: enums.Match, resolve: (c) => c.matchType }),
      status: t.field({ type: enums.Status, resolve: (c) => c.status }),
      sources: t.stringList({ description: 'Source origins that confirmed the record.', resolve: (c) => [...c.sources] }),
      agreement: t.field({ type: 'JSONObject', description: 'Why: which level each comparison landed on (given, family, nameOrder, dob, email, phone, sex, address, identifier, memberId), the weight of each in bits (weights; with priorLog2Odds they add up to log2Odds), the bits taken off a common value (termFrequency), this candidate\'s own confidence (pairConfidence), the scoring model version (modelVersion) and the hard rule that forbids an automatic link (blockedBy: identifier_conflict, verified_identifier_conflict, twins, different_family_name, or null; identifier: exact, typo (a probable keying error: one substitution, transposition, insertion or deletion), typo2 (two keying errors), conflict or missing).', resolve: (c) => ({ ...c.agreement }) }),
      identity: t.field({ type: IdentityType, nullable: true, description: 'The full record (needs identity.read).', resolve: (c, _a, ctx) => loaders.record(ctx).load(c.gpid) }),
    }),
  });

  const Warning = builder.objectRef<DemographicWarning>('IdentityDemographicWarning').implement({
    description: 'An optional field (email, phone, sex, address, identifier) whose value was invalid and was dropped: the rest was matched or resolved without it, and nothing of it was kept.',
    fields: (t) => ({
      field: t.exposeString('field', { description: 'The field: email, phones.1, sex, address.postal_code, identifiers.0.value …' }),
      code: t.exposeString('code', { description: 'INVALID_FIELD_DROPPED.' }),
      message: t.exposeString('message', { description: 'Why it was dropped (never the value).' }),
    }),
  });

  const MatchResultType = builder.objectRef<MatchResult>('IdentityMatchResult').implement({
    description: 'What Match found: nothing is created or changed.',
    fields: (t) => ({
      warnings: t.field({ type: [Warning], description: 'Invalid optional fields that were dropped (empty when strict).', resolve: (m) => m.warnings }),
      matchType: t.field({ type: enums.Match, description: "The best candidate's match type; NONE without candidates.", resolve: (m) => m.matchType }),
      candidates: t.field({ type: [Candidate], description: 'Best first, at most 10, confidence at least 0.05.', resolve: (m) => m.candidates }),
    }),
  });

  const Decision = builder.enumType('IdentityResolveDecision', {
    description: 'What resolve did.',
    values: {
      EXISTING: { description: 'Returned an existing GPID (one strong candidate).' },
      NEW_SHADOW: { description: 'Created a SHADOW record: no candidate.' },
      NEW_PROVISIONAL: { description: 'Created a PROVISIONAL record linked to partial candidates for review.' },
      NEW_CONFLICT: { description: 'Created a CONFLICT record: two or more strong candidates (duplicate detection).' },
    } as const,
  });

  const Resolution = builder.objectRef<ResolveResult>('IdentityResolution').implement({
    description: 'The GPID of the subject, existing or new, and how it was decided.',
    fields: (t) => ({
      gpid: t.exposeID('gpid'),
      entityType: t.exposeString('entityType'),
      status: t.field({ type: enums.Status, resolve: (r) => r.status }),
      matchType: t.field({ type: enums.Match, description: 'DETERMINISTIC or PARTIAL for an existing record; NONE for a new one.', resolve: (r) => r.matchType }),
      confidence: t.exposeFloat('confidence'),
      created: t.exposeBoolean('created'),
      decision: t.field({ type: Decision, resolve: (r) => r.decision }),
      subjectGpid: t.exposeID('subjectGpid', { nullable: true, description: 'The existing GPID the subject matched: gpid itself, the closest linked record of a new PROVISIONAL/CONFLICT record, or null.' }),
      links: t.idList({ description: 'GPIDs linked for review.', resolve: (r) => r.links }),
      sources: t.stringList({ description: 'Source origins that confirmed the record.', resolve: (r) => r.sources }),
      candidates: t.field({ type: [Candidate], description: 'Candidates at or above the partial threshold, best first.', resolve: (r) => r.candidates }),
      identity: t.field({ type: IdentityType, nullable: true, description: 'The full record (needs identity.read).', resolve: (r, _a, ctx) => loaders.record(ctx).load(r.gpid) }),
      warnings: t.field({ type: [Warning], description: 'Invalid optional fields that were dropped (empty when strict).', resolve: (r) => r.warnings }),
    }),
  });

  builder.queryFields((t) => ({
    identityMatch: t.field({
      type: MatchResultType,
      description: 'Match demographics against the registry: candidates with confidence scores. Query only: creates and changes nothing.',
      args: { input: t.arg({ type: Demographics, required: true }), strict: t.arg.boolean({ description: STRICT_DESCRIPTION }) },
      authScopes: { scope: 'identity.match' },
      resolve: (_root, { input, strict }, ctx) => {
        assertServiceCredential(ctx.principal);
        return service.match(ctx.principal, demographicsOf(input), { entityType: input.entityType ?? null, strict: strict ?? false });
      },
    }),
  }));

  builder.mutationFields((t) => ({
    resolveIdentity: t.field({
      type: Resolution,
      description: 'Resolve demographics to a GPID, creating a record when none matches. `source` is the X-Svc-Source origin; a second independent origin makes a record ACTIVE.',
      args: {
        input: t.arg({ type: Demographics, required: true }),
        source: t.arg.string({ required: true, description: `The caller's source origin: ${SOURCE_ORIGINS.join(', ')}.` }),
        strict: t.arg.boolean({ description: STRICT_DESCRIPTION }),
      },
      authScopes: { scope: 'identity.resolve' },
      resolve: (_root, { input, source, strict }, ctx) => {
        assertServiceCredential(ctx.principal);
        return service.resolve(ctx.principal, demographicsOf(input), { source: sourceArg(source), entityType: input.entityType ?? null, strict: strict ?? false });
      },
    }),
  }));
}
