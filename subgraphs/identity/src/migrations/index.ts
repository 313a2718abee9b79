import { M001IdentityRecords } from './m001-identity-records.js';
import { M002IdentityRegistry } from './m002-identity-registry.js';
import { M003IdentitySourceRecordLinks } from './m003-identity-source-record-links.js';
import { M004IdentityReviewQueue } from './m004-identity-review-queue.js';
import { M005IdentityScoringModels } from './m005-identity-scoring-models.js';
import { M006IdentityResolveObservations } from './m006-identity-resolve-observations.js';
import { M007OutboxTraceParent } from './m007-outbox-trace-parent.js';

/** The identity subgraph's migration history, oldest first. */
export const migrations = [
  { name: 'm001-identity-records', class: M001IdentityRecords },
  { name: 'm002-identity-registry', class: M002IdentityRegistry },
  { name: 'm003-identity-source-record-links', class: M003IdentitySourceRecordLinks },
  { name: 'm004-identity-review-queue', class: M004IdentityReviewQueue },
  { name: 'm005-identity-scoring-models', class: M005IdentityScoringModels },
  { name: 'm006-identity-resolve-observations', class: M006IdentityResolveObservations },
  { name: 'm007-outbox-trace-parent', class: M007OutboxTraceParent },
];
