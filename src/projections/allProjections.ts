import type { Projection } from './projection.ts';
import { apiKeysProjection } from './readModels/apiKeysProjection.ts';
import { creditLedgerProjection } from './readModels/creditLedgerProjection.ts';
import { deliveriesProjection } from './readModels/deliveriesProjection.ts';
import { flowsProjection } from './readModels/flowsProjection.ts';
import { jobsProjection } from './readModels/jobsProjection.ts';
import { organizationsProjection } from './readModels/organizationsProjection.ts';
import { projectsProjection } from './readModels/projectsProjection.ts';
import { runsProjection } from './readModels/runsProjection.ts';
import { testCasesProjection } from './readModels/testCasesProjection.ts';
import { testRunsProjection } from './readModels/testRunsProjection.ts';
import { backtestsProjection } from './readModels/backtestsProjection.ts';
import { retentionProjection } from './readModels/retentionProjection.ts';
import { schedulesProjection } from './readModels/schedulesProjection.ts';

export const allProjections: readonly Projection[] = [organizationsProjection, projectsProjection, apiKeysProjection, flowsProjection, creditLedgerProjection, jobsProjection, deliveriesProjection, testCasesProjection, testRunsProjection, runsProjection, backtestsProjection, retentionProjection, schedulesProjection];
