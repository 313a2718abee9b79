import { DateTimeType, EntitySchema } from '@mikro-orm/core';

/** A private_key_jwt assertion already used, kept until it expires so it cannot be replayed. */
export interface UsedClientAssertion {
  clientId: string;
  /** SHA-256 of the assertion's `jti` (bounded length whatever the client sends). */
  jtiHash: string;
  expiresAt: Date;
}

export const UsedClientAssertionEntity = new EntitySchema<UsedClientAssertion>({
  name: 'UsedClientAssertion',
  tableName: 'partner_client_assertions',
  properties: {
    clientId: { type: 'string', primary: true },
    jtiHash: { type: 'string', primary: true },
    expiresAt: { type: DateTimeType },
  },
});
