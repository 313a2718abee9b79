import { M001Outbox } from './m001-outbox.js';
import { M002ResourcesAndSearch } from './m002-resources-and-search.js';
import { M003BulkExport } from './m003-bulk-export.js';
import { M004AsyncSyncJobs } from './m004-async-sync-jobs.js';
import { M004SearchComposite } from './m004-search-composite.js';
import { M005ExportTypeFilterExpiry } from './m005-export-typefilter-expiry.js';
import { M006SharingRules } from './m006-sharing-rules.js';
import { M007SearchPatternIndexes } from './m007-search-pattern-indexes.js';
import { M008ExportPatientContext } from './m008-export-patient-context.js';
import { M009ExportElementsPatients } from './m009-export-elements-patients.js';
import { M010SearchCompositeThird } from './m010-search-composite-third.js';
import { M011AnalyticsQueries } from './m011-analytics-queries.js';
import { M012SearchDateHighIndex } from './m012-search-date-high-index.js';
import { M013SearchTokenCoveringIndexes } from './m013-search-token-covering-indexes.js';
import { M014ResourceKeyCoversVisibility } from './m014-resource-key-covers-visibility.js';
import { M015SqliteResourceVisibilityIndex } from './m015-sqlite-resource-visibility-index.js';
import { M016SyncJobsPartnerTurns } from './m016-sync-jobs-partner-turns.js';
import { M017PatientGpidLinks } from './m017-patient-gpid-links.js';
import { M018TokenImplicitCodeSystems } from './m018-token-implicit-code-systems.js';
import { M019OutboxTraceParent } from './m019-outbox-trace-parent.js';
import { M020JobTraceParent } from './m020-job-trace-parent.js';

/** The FHIR subgraph's migration history, in order. */
export const migrations = [
  { name: 'm001-outbox', class: M001Outbox },
  { name: 'm002-resources-and-search', class: M002ResourcesAndSearch },
  { name: 'm003-bulk-export', class: M003BulkExport },
  { name: 'm004-async-sync-jobs', class: M004AsyncSyncJobs },
  { name: 'm004-search-composite', class: M004SearchComposite },
  { name: 'm005-export-typefilter-expiry', class: M005ExportTypeFilterExpiry },
  { name: 'm006-sharing-rules', class: M006SharingRules },
  { name: 'm007-search-pattern-indexes', class: M007SearchPatternIndexes },
  { name: 'm008-export-patient-context', class: M008ExportPatientContext },
  { name: 'm009-export-elements-patients', class: M009ExportElementsPatients },
  { name: 'm010-search-composite-third', class: M010SearchCompositeThird },
  { name: 'm011-analytics-queries', class: M011AnalyticsQueries },
  { name: 'm012-search-date-high-index', class: M012SearchDateHighIndex },
  { name: 'm013-search-token-covering-indexes', class: M013SearchTokenCoveringIndexes },
  { name: 'm014-resource-key-covers-visibility', class: M014ResourceKeyCoversVisibility },
  { name: 'm015-sqlite-resource-visibility-index', class: M015SqliteResourceVisibilityIndex },
  { name: 'm016-sync-jobs-partner-turns', class: M016SyncJobsPartnerTurns },
  { name: 'm017-patient-gpid-links', class: M017PatientGpidLinks },
  { name: 'm018-token-implicit-code-systems', class: M018TokenImplicitCodeSystems },
  { name: 'm019-outbox-trace-parent', class: M019OutboxTraceParent },
  { name: 'm020-job-trace-parent', class: M020JobTraceParent },
];
