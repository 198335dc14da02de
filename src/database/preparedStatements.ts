import pg from 'pg';

/**
 * The mark a statement's text ends with to be prepared once per connection: for the statements a
 * hot path sends with one text many times a second, which PostgreSQL would otherwise parse and plan
 * on every call (`pg_stat_statements` over a passthrough load: the log's appends, the projections'
 * checkpoint read and update, 83 and 54 µs of planning a call, once per batch). Unmarked statements are sent as before:
 * Kysely's multi-row inserts change their text with their rows, and a prepared statement stays in
 * its session until the session ends.
 */
export const PREPARED = '/* prepared */';

/**
 * A node-postgres Client class (the pool's `Client` option) that sends the statements ending with
 * PREPARED named, one name per text, so each session parses and plans them once; at most `maxTexts`
 * texts are named (past it, sent unnamed), bounding what each session keeps. Only where the pool's
 * connections are the server's own sessions: PgBouncer in transaction mode (before 1.21) hands the
 * next transaction a session that never saw the statement (docs/running.md).
 */
export function preparingClient(maxTexts = 100): typeof pg.Client {
  const names = new Map<string, string>();
  const nameOf = (text: string) => {
    let name = names.get(text);
    if (name === undefined && names.size < maxTexts) names.set(text, (name = `seqflow_prepared_${names.size + 1}`));
    return name;
  };
  class PreparingClient extends pg.Client {
    // pg's overloads: (text, values?, callback?), (text, callback), (config, values?, callback?), (submittable).
    override query(...args: unknown[]): never {
      const [first, second, third] = args;
      const send = super.query.bind(this) as (...a: unknown[]) => never;
      if (typeof first !== 'string' || !first.endsWith(PREPARED)) return send(...args);
      const name = nameOf(first);
      if (name === undefined) return send(...args);
      const [values, callback] = typeof second === 'function' ? [undefined, second] : [second, third];
      return callback === undefined ? send({ name, text: first, values }) : send({ name, text: first, values }, callback);
    }
  }
  return PreparingClient;
}
