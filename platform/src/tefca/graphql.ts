import type { SubgraphBuilder } from '../graphql/builder.js';

/**
 * `TefcaPatientInput`, declared identically by every subgraph that takes XCPD demographics
 * (identity: inbound discovery; pipeline: outbound search), so that composition merges one type.
 */
export function defineTefcaPatientInput(builder: SubgraphBuilder) {
  return builder.inputType('TefcaPatientInput', {
    description: 'The patient of a TEFCA patient discovery (XCPD, ITI-55): the demographics a community matches on. A name (family and/or given) is required.',
    fields: (t) => ({
      given: t.stringList({ description: 'Given names, first first.' }),
      family: t.string({ description: 'Family name.' }),
      birthDate: t.string({ description: 'Date of birth, YYYY-MM-DD.' }),
      gender: t.string({ description: 'male, female, other or unknown (not compared by the registry).' }),
      email: t.string(),
      phone: t.string(),
    }),
  });
}
