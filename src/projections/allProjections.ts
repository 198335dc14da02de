import type { Projection, ProjectionGroup } from './projection.ts';
import { apiKeysProjection } from './readModels/apiKeysProjection.ts';
import { creditLedgerProjection } from './readModels/creditLedgerProjection.ts';
import { deliveriesProjection } from './readModels/deliveriesProjection.ts';
import { flowsProjection } from './readModels/flowsProjection.ts';
import { jobsProjection } from './readModels/jobsProjection.ts';
import { approvalsProjection } from './readModels/approvalsProjection.ts';
import { organizationsProjection } from './readModels/organizationsProjection.ts';
import { projectsProjection } from './readModels/projectsProjection.ts';
import { runsProjection } from './readModels/runsProjection.ts';
import { testCasesProjection } from './readModels/testCasesProjection.ts';
import { testRunsProjection } from './readModels/testRunsProjection.ts';
import { backtestsProjection } from './readModels/backtestsProjection.ts';
import { retentionProjection } from './readModels/retentionProjection.ts';
import { schedulesProjection } from './readModels/schedulesProjection.ts';

export const allProjections: readonly Projection[] = [organizationsProjection, projectsProjection, apiKeysProjection, flowsProjection, creditLedgerProjection, jobsProjection, deliveriesProjection, testCasesProjection, testRunsProjection, runsProjection, backtestsProjection, retentionProjection, schedulesProjection, approvalsProjection];

/**
 * The projections as runners, shared among worker processes under leases (src/leases/projectionLeases.ts).
 * This grouping keeps the hot paths apart: runs, jobs and deliveries each take events at the rate of
 * runs, the catalog and the ledger far fewer.
 */
export const projectionGroups: readonly ProjectionGroup[] = [
  { name: 'catalog', projections: [organizationsProjection, projectsProjection, apiKeysProjection, flowsProjection, testCasesProjection, retentionProjection, schedulesProjection] },
  { name: 'credits', projections: [creditLedgerProjection] },
  { name: 'runs', projections: [runsProjection, testRunsProjection, backtestsProjection] },
  { name: 'jobs', projections: [jobsProjection, approvalsProjection] },
  { name: 'deliveries', projections: [deliveriesProjection] },
];
