import { z } from 'zod';
import { operational } from './dataClass.ts';

/*
 * The kinds of text most events carry, each operational for one reason, so an event's schema says
 * what its field is (`anId()`) and the reason is written once. Each call makes a schema of its own:
 * a mark belongs to one schema instance.
 */

/** An id the service made (a UUID, a derived id), or a name of one of its streams. */
export const anId = () => operational(z.string(), 'an id the service made: names a record, says nothing of a person');

/** A name or slug a flow's authors or an operator chose for an organization, project, flow, block or test: configuration. */
export const aName = () => operational(z.string(), "a name the service's users chose for what they configure: configuration, not a run's data");

/** An error or result code from the service's fixed vocabulary. */
export const aCode = () => operational(z.string(), "a code from the service's own vocabulary");

/** A model's name (`provider:model` or a catalog name): configuration. */
export const aModel = () => operational(z.string(), "a model's name from the flow's configuration or the catalog");

/** A time the service wrote (ISO 8601 text). */
export const aTime = () => operational(z.string(), 'a time the service recorded');

/** A member, operator or principal: who acts in the service, kept for accountability. */
export const aSubject = () => operational(z.string().min(1), "who acted in the service (a member's or operator's subject): kept as the audit trail's who");

/** A SHA-256 (hex) or other digest: says nothing that can be read back. */
export const aHash = (schema: z.ZodString = z.string()) => operational(schema, 'a digest: nothing can be read back from it');

/** An OAuth client's id: the embedded authorization server's, or a client's metadata document URL. */
export const oauthClientId = () => operational(z.string().min(1), "an assistant's client id (issued here, or its metadata document's URL): names software, not a person");

/** Where a run's webhooks go: the caller's system, named by the caller. */
export const callbackUrl = () => operational(z.string(), "the receiver's address the caller gave for a run's webhooks: the caller's system, needed by every attempt (its secrets are redacted wherever it is shown)");

/** A worker process's name (its host and process id, or the name it was given). */
export const workerName = () => operational(z.string(), "a worker process's name: which of the service's processes did it");
