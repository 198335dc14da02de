import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderRequest, secretsOfRequest } from '../../src/domain/blocks/http/renderedRequest.ts';
import type { StoredStep } from '../../src/domain/flows/flowDefinition.ts';
import { validateFlowForPublish } from '../../src/domain/flows/flowValidation.ts';
import { draftWarnings } from '../../src/domain/flows/draftWarnings.ts';
import { organization } from '../../src/domain/organizations/organization.ts';
import type { OrganizationEvent } from '../../src/domain/organizations/organizationEvents.ts';
import { redactedSecret, secretRedaction } from '../../src/domain/secrets/secretRedaction.ts';
import { SECRETS_MAX, secretNameProblem, secretValueProblem } from '../../src/domain/secrets/secretRules.ts';
import { deciderSpec } from '../support/deciderSpec.ts';

const context = { message: 'hi', previous_output: null, parameters: { id: 'a/b' }, steps: {} };
const cipher = { iv: 'iv', tag: 'tag', ciphertext: 'c' };
const created: OrganizationEvent = { type: 'OrganizationCreated', data: { organizationId: 'o1', slug: 'acme', name: 'Acme' } };
const setAt = '2026-12-03T10:00:00.000Z';
const httpStep = (request: Record<string, unknown>): StoredStep => ({ block: { id: 'h', name: 'call', processor_type: 'http', processor_config: { request: request as never } } });
const at = "steps[0].block (block 'call')";

describe("an organization's secrets", () => {
  const spec = deciderSpec(organization);

  it('are set as version 1, and each setting of the name again is the next version (a rotation)', () => {
    spec.given([created]).when({ type: 'SetSecret', data: { name: 'crm_token', encryptedValue: cipher, now: setAt } }).then([{ type: 'SecretSet', data: { organizationId: 'o1', name: 'crm_token', version: 1, encryptedValue: cipher, setAt } }]);
    spec
      .given([created, { type: 'SecretSet', data: { organizationId: 'o1', name: 'crm_token', version: 1, encryptedValue: cipher, setAt } }])
      .when({ type: 'SetSecret', data: { name: 'crm_token', encryptedValue: cipher, now: setAt } })
      .then((events) => expect(events).toMatchObject([{ type: 'SecretSet', data: { version: 2 } }]));
  });

  it('are deleted by name; deleting one the organization does not hold is SECRET_NOT_FOUND, and a deleted name starts again at 1', () => {
    const set: OrganizationEvent = { type: 'SecretSet', data: { organizationId: 'o1', name: 'crm_token', version: 3, encryptedValue: cipher, setAt } };
    spec.given([created, set]).when({ type: 'DeleteSecret', data: { name: 'crm_token', now: setAt } }).then([{ type: 'SecretDeleted', data: { organizationId: 'o1', name: 'crm_token', deletedAt: setAt } }]);
    spec.given([created]).when({ type: 'DeleteSecret', data: { name: 'crm_token', now: setAt } }).thenRefuses('SECRET_NOT_FOUND');
    spec.given([created, set, { type: 'SecretDeleted', data: { organizationId: 'o1', name: 'crm_token', deletedAt: setAt } }]).when({ type: 'DeleteSecret', data: { name: 'crm_token', now: setAt } }).thenRefuses('SECRET_NOT_FOUND');
    spec
      .given([created, set, { type: 'SecretDeleted', data: { organizationId: 'o1', name: 'crm_token', deletedAt: setAt } }])
      .when({ type: 'SetSecret', data: { name: 'crm_token', encryptedValue: cipher, now: setAt } })
      .then((events) => expect(events).toMatchObject([{ data: { version: 1 } }]));
  });

  it('are refused a name that is not one, an organization that does not exist, and more than the bound', () => {
    spec.given([created]).when({ type: 'SetSecret', data: { name: '__proto__', encryptedValue: cipher, now: setAt } }).thenRefuses('VALIDATION_FAILED');
    spec.given([]).when({ type: 'SetSecret', data: { name: 'crm', encryptedValue: cipher, now: setAt } }).thenRefuses('ORGANIZATION_NOT_FOUND');
    const full = Array.from({ length: SECRETS_MAX }, (_, i): OrganizationEvent => ({ type: 'SecretSet', data: { organizationId: 'o1', name: `s${i}`, version: 1, encryptedValue: cipher, setAt } }));
    spec.given([created, ...full]).when({ type: 'SetSecret', data: { name: 'one_more', encryptedValue: cipher, now: setAt } }).thenRefuses('VALIDATION_FAILED');
    // A new version of one it holds is not one more.
    spec.given([created, ...full]).when({ type: 'SetSecret', data: { name: 's0', encryptedValue: cipher, now: setAt } }).then((events) => expect(events).toHaveLength(1));
  });

  it('take names like a variable and values that fit a URL or a header, long enough to redact', () => {
    expect(secretNameProblem('crm_token')).toBeNull();
    expect(secretNameProblem('1token')).toContain('must start with a letter');
    expect(secretNameProblem('a.b')).toContain('only letters, digits and _');
    expect(secretValueProblem('s3cr3t-v4lue')).toBeNull();
    expect(secretValueProblem('short')).toContain('at least 8 characters');
    expect(secretValueProblem('line one\nline two')).toContain('line break');
    expect(secretValueProblem('x'.repeat(8_193))).toContain('at most 8192');
  });
});

describe('{{secrets.<name>}} in a request', () => {
  const template = { method: 'POST' as const, url: 'https://crm.example.com/v1/{{secrets.path_key}}/{{parameters.id}}', headers: { authorization: 'Bearer {{secrets.crm_token}}' }, body: { note: '{{secrets.crm_token}}' } };

  it('fills the URL (percent-encoded) and the headers, never the body', () => {
    const rendered = renderRequest(template, context, { crm_token: 'tok en/1', path_key: 'k/ey+1' });
    expect(rendered).toMatchObject({ url: 'https://crm.example.com/v1/k%2Fey%2B1/a%2Fb', headers: { authorization: 'Bearer tok en/1' }, body: '{"note":""}' });
    expect(secretsOfRequest(template)).toEqual(['path_key', 'crm_token']);
  });

  it('renders empty wherever no secrets are given (a prompt), and a prompt with one is warned of', () => {
    expect(renderRequest(template, context)).toMatchObject({ url: 'https://crm.example.com/v1//a%2Fb', headers: { authorization: 'Bearer ' } });
    expect(draftWarnings([{ step_id: 's', name: 'ask', processor_type: 'llm', model: null, prompt: 'use {{secrets.crm_token}}' }], () => true)).toEqual([expect.stringContaining('{{secrets.crm_token}} always renders empty')]);
  });

  it('is refused at publish in a body, a prompt and a system prompt, and when the organization has no such secret', () => {
    expect(validateFlowForPublish([httpStep(template)])).toEqual([`${at}.processor_config.request.body: {{secrets.crm_token}}: secrets go only in the request's URL and headers`]);
    const prompt: StoredStep = { block: { id: 'l', name: 'ask', processor_type: 'llm', prompt: 'token {{secrets.crm_token}}', processor_config: { system_prompt: 'also {{secrets.other}}' } } };
    expect(validateFlowForPublish([prompt])).toEqual([
      "steps[0].block (block 'ask').prompt: {{secrets.crm_token}}: secrets go only in an http request's URL and headers, never in a prompt",
      "steps[0].block (block 'ask').processor_config.system_prompt: {{secrets.other}}: secrets go only in an http request's URL and headers, never in a prompt",
    ]);
    const { body: _body, ...withoutBody } = template;
    expect(validateFlowForPublish([httpStep(withoutBody)], { secrets: ['crm_token'] })).toEqual([
      `${at}.processor_config.request: {{secrets.path_key}}: the organization has no secret 'path_key' (seqflow secret set --org <org> --name path_key)`,
    ]);
    expect(validateFlowForPublish([httpStep(withoutBody)], { secrets: ['crm_token', 'path_key'] })).toEqual([]);
  });
});

describe('redacting secrets', () => {
  it('replaces every copy, as written and percent-encoded, with the name; the longer of two overlapping values whole', () => {
    const redact = secretRedaction({ token: 'abc/def+123', longer: 'abc/def+123-and-more' });
    expect(redact.text('a abc/def+123 b abc%2Fdef%2B123 c abc/def+123-and-more')).toBe(`a ${redactedSecret('token')} b ${redactedSecret('token')} c ${redactedSecret('longer')}`);
    expect(redact.json({ 'abc/def+123': ['x abc/def+123', 7, null, { deep: 'abc/def+123' }] })).toEqual({ '[secret:token]': ['x [secret:token]', 7, null, { deep: '[secret:token]' }] });
  });

  it('leaves nothing of a value, wherever it stands in whatever text (property)', () => {
    const value = fc.string({ minLength: 8, maxLength: 40 }).filter((v) => secretValueProblem(v) === null && !'[secret:s]'.includes(v));
    fc.assert(
      fc.property(value, fc.array(fc.string({ maxLength: 20 }), { maxLength: 5 }), (secret, pieces) => {
        const text = pieces.join(secret) + encodeURIComponent(secret);
        const redacted = secretRedaction({ s: secret }).text(text);
        expect(redacted.includes(secret)).toBe(false);
        expect(redacted.includes(encodeURIComponent(secret))).toBe(false);
      }),
    );
  });
});
