import { SchemaMigration } from '@svc/platform';

/** Scope requests: a partner asks for scopes with a reason; an operator grants or refuses. */
export class M007ScopeRequests extends SchemaMigration {
  override async up(): Promise<void> {
    this.schema((s) =>
      s.createTable('partner_scope_requests', (t) => {
        t.string('id', 40).primary();
        t.string('partner_gpid', 12).notNullable().references('gpid').inTable('partner_partners');
        t.json('scopes').notNullable();
        t.text('reason').notNullable();
        t.string('status', 16).notNullable();
        t.string('requested_by', 40).nullable();
        t.timestamp('created_at', { useTz: true }).notNullable();
        t.string('decided_by', 40).nullable();
        t.text('decision_reason').nullable();
        t.timestamp('decided_at', { useTz: true }).nullable();
        t.index(['partner_gpid', 'status'], 'partner_scope_requests_partner_idx');
        t.index(['status'], 'partner_scope_requests_status_idx');
      }),
    );
  }
}
