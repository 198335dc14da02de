import { type Kysely, sql } from 'kysely';

/** What this migration does, as `seqflow migrate --plan` says it before it runs. */
export const summary = 'Creates the read models of organizations, projects, API keys, flows and their versions, and the projection checkpoints.';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('projection_checkpoints')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('position', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('organizations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('slug', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('members')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('user_subject', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('added_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('members_pk', ['organization_id', 'user_subject'])
    .execute();

  await db.schema
    .createTable('projects')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('slug', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addUniqueConstraint('projects_org_slug', ['organization_id', 'slug'])
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('key_id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('key_prefix', 'text', (c) => c.notNull())
    .addColumn('secret_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('revoked_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('api_keys_project').on('api_keys').column('project_id').execute();

  await db.schema
    .createTable('flows')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('slug', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('draft', 'jsonb', (c) => c.notNull())
    .addColumn('block_count', 'integer', (c) => c.notNull())
    .addColumn('production_version_id', 'text')
    .addColumn('production_version_number', 'integer')
    .addColumn('production_set_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .addUniqueConstraint('flows_project_slug', ['project_id', 'slug'])
    .execute();

  await db.schema
    .createTable('flow_blocks')
    .addColumn('flow_id', 'text', (c) => c.notNull())
    .addColumn('block_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('step_index', 'integer', (c) => c.notNull())
    .addColumn('index_in_step', 'integer', (c) => c.notNull())
    .addColumn('step_kind', 'text', (c) => c.notNull())
    .addColumn('loop_over', 'text')
    .addColumn('processor_type', 'text', (c) => c.notNull())
    .addColumn('prompt', 'text')
    .addColumn('model', 'text')
    .addColumn('output_schema', 'jsonb')
    .addColumn('code', 'text')
    .addColumn('processor_config', 'jsonb', (c) => c.notNull())
    .addPrimaryKeyConstraint('flow_blocks_pk', ['flow_id', 'block_id'])
    .execute();

  await db.schema
    .createTable('flow_versions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('flow_id', 'text', (c) => c.notNull())
    .addColumn('number', 'integer', (c) => c.notNull())
    .addColumn('note', 'text')
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('steps', 'jsonb', (c) => c.notNull())
    .addColumn('block_count', 'integer', (c) => c.notNull())
    .addColumn('published_at', 'timestamptz', (c) => c.notNull())
    .addUniqueConstraint('flow_versions_flow_number', ['flow_id', 'number'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['flow_versions', 'flow_blocks', 'flows', 'api_keys', 'projects', 'members', 'organizations', 'projection_checkpoints']) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
