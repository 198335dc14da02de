import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Problem, Section } from '../components.tsx';
import { useClient } from '../consoleContext.tsx';
import { when } from '../format.ts';

/**
 * The organization's secrets for http requests (`{{secrets.<name>}}` in a URL or a header): their
 * names, versions and when each was set, never a value; set (a new version for a name that
 * exists) and delete, as `seqflow secret set|delete` does, recorded with the operator's name.
 */
export function SecretsPanel({ organizationId }: { organizationId: string }) {
  const client = useClient();
  const queries = useQueryClient();
  const key = ['organizationSecrets.list', organizationId];
  const secrets = useQuery({ queryKey: key, queryFn: () => client.organizationSecrets.list.query({ organizationId }) });
  const changed = () => queries.invalidateQueries({ queryKey: key });
  const set = useMutation({ mutationFn: (input: { name: string; value: string }) => client.organizationSecrets.set.mutate({ organizationId, ...input }), onSuccess: changed });
  const remove = useMutation({ mutationFn: (name: string) => client.organizationSecrets.delete.mutate({ organizationId, name }), onSuccess: changed });
  const [name, setName] = useState('');
  const [value, setValue] = useState('');
  return (
    <Section title="Secrets">
      {secrets.error ? <Problem error={secrets.error} /> : null}
      {set.error ? <Problem error={set.error} /> : null}
      {remove.error ? <Problem error={remove.error} /> : null}
      {secrets.data ? (
        secrets.data.length === 0 ? (
          <p className="muted secrets-empty">No secrets yet.</p>
        ) : (
          <div className="table-wrap">
            <table className="secrets">
              <thead>
                <tr>
                  <th>Name</th>
                  <th>Version</th>
                  <th>Set</th>
                  <th />
                </tr>
              </thead>
              <tbody>
                {secrets.data.map((s) => (
                  <tr key={s.name} className="secret">
                    <td className="secret-name">{s.name}</td>
                    <td>v{s.version}</td>
                    <td>{when(s.setAt)}</td>
                    <td>
                      <button type="button" className="secret-delete" disabled={remove.isPending} onClick={() => remove.mutate(s.name)}>
                        Delete
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )
      ) : (
        <p>Loading…</p>
      )}
      <form
        className="filters secret-form"
        onSubmit={(e) => {
          e.preventDefault();
          set.mutate({ name: name.trim(), value }, { onSuccess: () => setValue('') });
        }}
      >
        <label>
          Name
          <input name="secret-name" value={name} onChange={(e) => setName(e.target.value)} placeholder="crm_token" autoComplete="off" />
        </label>
        <label>
          Value
          <input name="secret-value" type="password" value={value} onChange={(e) => setValue(e.target.value)} autoComplete="new-password" />
        </label>
        <button type="submit" disabled={set.isPending || name.trim() === '' || value === ''}>
          Set
        </button>
      </form>
      <p className="muted">Requests name a secret as {'{{secrets.<name>}}'} in their URL or headers. Values are stored encrypted and never shown again; in traces and errors they read [secret:&lt;name&gt;].</p>
    </Section>
  );
}
