import { M001Outbox } from './m001-outbox.js';
import { M002ResourcesAndSearch } from './m002-resources-and-search.js';
import { M003BulkExport } from './m003-bulk-export.js';
import { M004AsyncSyncJobs } from './m004-async-sync-jobs.js';

/** The FHIR subgraph's migration history, in order. */
export const migrations = [
  { name: 'm001-outbox', class: M001Outbox },
  { name: 'm002-resources-and-search', class: M002ResourcesAndSearch },
  { name: 'm003-bulk-export', class: M003BulkExport },
  { name: 'm004-async-sync-jobs', class: M004AsyncSyncJobs },
];
