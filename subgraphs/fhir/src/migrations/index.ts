import { M001Outbox } from './m001-outbox.js';
import { M002ResourcesAndSearch } from './m002-resources-and-search.js';
import { M003BulkExport } from './m003-bulk-export.js';
import { M004SearchPatternIndexes } from './m004-search-pattern-indexes.js';

/** The FHIR subgraph's migration history, in order. */
export const migrations = [
  { name: 'm001-outbox', class: M001Outbox },
  { name: 'm002-resources-and-search', class: M002ResourcesAndSearch },
  { name: 'm003-bulk-export', class: M003BulkExport },
  { name: 'm004-search-pattern-indexes', class: M004SearchPatternIndexes },
];
