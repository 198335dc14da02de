import type { Kysely } from 'kysely';
import { LRUCache } from 'lru-cache';
import type { ReadModels } from '../projections/readModelSchema.ts';
import { flowSlugsOf } from '../queries/flowQueries.ts';

/**
 * A job's poll path (`/api/v1/seq/{org}/{project}/{flow}/jobs/{id}`), for its webhook payload. Slugs
 * never change once taken, so each flow's path is kept (bounded).
 */
export function createJobPaths(db: Kysely<ReadModels>, max = 10_000) {
  const flowPaths = new LRUCache<string, string>({ max });
  return async (flowId: string, executionId: string) => {
    const known = flowPaths.get(flowId);
    if (known) return `${known}/${executionId}`;
    const slugs = await flowSlugsOf(db, flowId);
    if (!slugs) return `/api/v1/jobs/${executionId}`;
    const path = `/api/v1/seq/${slugs.org}/${slugs.project}/${slugs.flow}/jobs`;
    flowPaths.set(flowId, path);
    return `${path}/${executionId}`;
  };
}
