import { SchemaMigration } from '@svc/platform';
import { codeOnlyTokenParams } from '../domain/implicit-code-systems.js';

/**
 * Token rows of `code` elements indexed before they carried their implicit system (the system of
 * the element's required value set, R4 search.html token rules; see implicit-code-systems.ts) get
 * it, so `gender=http://hl7.org/fhir/administrative-gender|male` finds Patients stored earlier too.
 * Only parameters whose every element is such a code are touched, so a Coding without a system
 * stays without one. Derived from the loaded definitions, like the indexer.
 */
export class M018TokenImplicitCodeSystems extends SchemaMigration {
  override async up(): Promise<void> {
    const knex = this.getKnex();
    // A new database (every test boot) has no rows to fill: skip the ~160 statements.
    const untyped = await this.execute(knex('fhir_sp_token').select('resource_id').whereNull('system').whereNotNull('code').limit(1).toQuery());
    if (untyped.length === 0) return;
    for (const { resourceType, param, systems } of codeOnlyTokenParams()) {
      for (const { system, codes } of systems) {
        if (codes !== null && codes.length === 0) continue;
        const update = knex('fhir_sp_token').update({ system }).where({ resource_type: resourceType, param }).whereNull('system').whereNotNull('code');
        this.addSql((codes === null ? update : update.whereIn('code', codes)).toQuery());
      }
    }
  }
}
