import { readFile } from 'node:fs/promises';
import { createApiKey } from '../commands/apiKeyCommands.ts';
import { importFlow } from '../commands/flowCommands.ts';
import { addMember, createOrganization } from '../commands/organizationCommands.ts';
import { createProject } from '../commands/projectCommands.ts';
import { ownerOfSlug } from '../commands/slugLookup.ts';
import { ApiError } from '../domain/errors/apiError.ts';
import type { Runtime } from './runtime.ts';

const DEMO_FLOW_FILE = new URL('../../examples/hello.flow.json', import.meta.url);
const ESSAY_FLOW_FILE = new URL('../../examples/essay-feedback.flow.json', import.meta.url);

/** The demo organization's owner: the subject a demo sign-in code is for. */
export const DEMO_OWNER = 'demo-owner';
const metadata = { principal: { kind: 'system' as const, id: 'demo-seed' } };

/** On first start: a demo organization, project, API key and flow. Returns the key, shown only this once. */
export async function seedDemo(runtime: Runtime): Promise<{ apiKey: string; org: string; project: string; flow: string } | null> {
  const deps = runtime.commands;
  if (await ownerOfSlug(deps.eventStore, 'organization', null, 'demo')) return null;
  try {
    // Enough credits (tokens) to try every example flow many times.
    await createOrganization(deps, { slug: 'demo', name: 'Demo organization', initialCredits: 1_000_000 }, metadata);
  } catch (error) {
    // Another process starting at the same moment seeded it.
    if (error instanceof ApiError && error.code === 'SLUG_TAKEN') return null;
    throw error;
  }
  await addMember(deps, { organizationSlug: 'demo', userSubject: DEMO_OWNER, role: 'owner' }, metadata);
  await createProject(deps, { organizationSlug: 'demo', slug: 'demo', name: 'Demo project' }, metadata);
  const file = JSON.parse(await readFile(DEMO_FLOW_FILE, 'utf8')) as { slug: string };
  const imported = await importFlow(deps, { organizationSlug: 'demo', projectSlug: 'demo', file, production: true, note: 'demo' }, metadata);
  // The spec's example; it needs a model provider (OPENAI_BASE_URL / OPENAI_API_KEY) to run.
  const essay = JSON.parse(await readFile(ESSAY_FLOW_FILE, 'utf8')) as unknown;
  await importFlow(deps, { organizationSlug: 'demo', projectSlug: 'demo', file: essay, production: true, note: 'demo' }, metadata);
  const key = await createApiKey(deps, { organizationSlug: 'demo', projectSlug: 'demo', environment: 'test' }, metadata);
  await runtime.projections.waitForPosition(Math.max(imported.position, key.position), 10_000).catch(() => undefined);
  return { apiKey: key.key, org: 'demo', project: 'demo', flow: file.slug };
}
