import { DomainError, defineTefcaPatientInput, readTefcaPatient, runTefcaExchange, validationError, type SubgraphBuilder, type TefcaPatient } from '@svc/platform';
import { matchGrade, type DemographicsInput, type MatchGrade } from '../domain/index.js';
import type { IdentityService } from '../identity-service.js';

/** The most matches one discovery answers. */
const MAX_MATCHES = 10;

interface InboundMatch {
  patientId: string;
  homeCommunityId: string;
  matchQuality: number;
  matchGrade: MatchGrade;
}

interface InboundDiscovery {
  exchangeId: string;
  purposeOfUse: string;
  homeCommunityId: string;
  matches: InboundMatch[];
}

/** ITI-55 demographics as the registry's input: the given names are the first and middle names. */
function demographicsOf(p: TefcaPatient): DemographicsInput {
  const [first, ...middle] = p.given;
  return {
    name: { ...(first ? { given: first } : {}), ...(middle.length ? { middle: middle.join(' ') } : {}), ...(p.family ? { family: p.family } : {}) },
    dob: p.birthDate,
    email: p.email,
    phone: p.phone,
  };
}

/** Where the registry's field errors sit in the request. */
const FIELDS: Record<string, string> = { name: 'patient.family', dob: 'patient.birth_date', email: 'patient.email', phone: 'patient.phone' };

/**
 * `tefcaDiscoverPatients`: inbound TEFCA patient discovery (IHE XCPD ITI-55 as JSON), what
 * POST /tefca/xcpd/discover runs. A peer community asks whether we know a patient; the registry
 * matches (stages 1–4, never resolve: nothing is created or linked) against the whole community,
 * and answers the GPIDs of certain and probable matches with their quality. It discloses no
 * demographics and no source origins: the peer already holds the demographics it sent, and the
 * GPID is the patient id it uses in the document query that follows. Every request, answered or
 * refused, is audited as a `tefca.*` event from this subgraph's outbox.
 */
export function defineTefcaDiscovery(builder: SubgraphBuilder, service: IdentityService) {
  const PatientInput = defineTefcaPatientInput(builder);
  const Match = builder.objectRef<InboundMatch>('TefcaInboundPatientMatch').implement({
    description: 'A patient of this community that matches the discovery request.',
    fields: (t) => ({
      patientId: t.exposeID('patientId', { description: 'The patient id at this community (its GPID).' }),
      homeCommunityId: t.exposeString('homeCommunityId'),
      matchQuality: t.exposeFloat('matchQuality', { description: 'Confidence in [0, 1].' }),
      matchGrade: t.exposeString('matchGrade', { description: 'certain or probable (possible matches are not disclosed).' }),
    }),
  });
  const Discovery = builder.objectRef<InboundDiscovery>('TefcaInboundDiscovery').implement({
    description: "This community's answer to a patient discovery.",
    fields: (t) => ({
      exchangeId: t.exposeID('exchangeId', { description: 'xch_…: the audit log entry of this exchange.' }),
      purposeOfUse: t.exposeString('purposeOfUse'),
      homeCommunityId: t.exposeString('homeCommunityId', { description: 'This community.' }),
      matches: t.field({ type: [Match], description: `Best first, at most ${MAX_MATCHES}.`, resolve: (d) => d.matches }),
    }),
  });

  builder.mutationFields((t) => ({
    tefcaDiscoverPatients: t.field({
      type: Discovery,
      description:
        'Inbound TEFCA patient discovery (XCPD, ITI-55): match the demographics against this community\'s registry, creating nothing. Needs tefca.xcpd.discover and a TEFCA purpose of use. Audited (tefca.xcpd.discovery.received, or tefca.exchange.refused).',
      args: {
        purposeOfUse: t.arg.string({ description: 'Required: a TEFCA exchange purpose code (T-TREAT, T-PYMNT, T-HCO, …).' }),
        requestingCommunityId: t.arg.string({ description: 'The home community id of the requesting community (urn:oid:…).' }),
        patient: t.arg({ type: PatientInput, required: true }),
      },
      authScopes: { scope: 'tefca.xcpd.discover' },
      resolve: (_root, args, ctx) =>
        runTefcaExchange<Omit<InboundDiscovery, 'exchangeId' | 'purposeOfUse'>>({
          kind: 'xcpd',
          direction: 'inbound',
          principal: ctx.principal,
          requestId: ctx.requestId,
          purposeOfUse: args.purposeOfUse,
          requestingCommunityId: args.requestingCommunityId,
          stage: (event) => service.recordEvent(event),
          work: async () => {
            const patient = readTefcaPatient(args.patient as Record<string, unknown>);
            const home = service.tefca.homeCommunityId;
            let result;
            try {
              result = await service.matchForExchange(demographicsOf(patient));
            } catch (err) {
              if (err instanceof DomainError && err.code === 'VALIDATION_ERROR') {
                throw validationError(err.fieldErrors.map((f) => ({ field: FIELDS[f.field] ?? 'patient', message: f.message })), err.message);
              }
              throw err;
            }
            const matches = result.candidates
              .map((c) => ({ c, grade: matchGrade(c) }))
              .filter(({ c, grade }) => grade !== 'possible' && c.status !== 'MERGED')
              .slice(0, MAX_MATCHES)
              .map(({ c, grade }) => ({ patientId: c.gpid, homeCommunityId: home, matchQuality: c.confidence, matchGrade: grade }));
            return { answer: { homeCommunityId: home, matches }, resultCount: matches.length, outcome: 'success', respondingCommunityIds: [home] };
          },
        }),
    }),
  }));
}
