// Generated from the Seqflow API's OpenAPI document by `npm run client:types`: do not edit.

export type paths = {
    "/api/v1/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Database and event-log reachability, projection lag, background tasks */
        get: operations["getHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/organizations/{org_id}/assistants": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The assistants the organization's members signed in with (owners and admins) */
        get: operations["listOrganizationAssistants"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/organizations/{org_id}/assistants/{client_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** End an assistant a member signed in with: its sign-ins and tokens end at once (owners and admins) */
        delete: operations["endOrganizationAssistant"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/organizations/{org_id}/webhooks/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The organization's webhook deliveries, newest first */
        get: operations["listWebhookDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/organizations/{org_id}/webhooks/secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The organization's webhook signing secret, masked (issued on first use) */
        get: operations["getWebhookSecret"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/organizations/{org_id}/webhooks/secret/rotate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Rotate the signing secret: the new one is shown once; the previous one also signs (v2) during the grace window */
        post: operations["rotateWebhookSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/seq/{org}/{project}/{flow}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A flow and its production version */
        get: operations["getFlow"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/seq/{org}/{project}/{flow}/execute": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Run the production version and answer when it completes, pauses for tool calls or fails
         * @description A fresh run (`message`, `parameters`, `attachments`, `tools`) or the resume of a tool pause (`executionId`, `pausedAtStep`, `toolCallMessages`, `tools`). A run that reaches an approval block is answered at once with 202 and what it waits for (an addition to the spec).
         */
        post: operations["executeFlow"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/seq/{org}/{project}/{flow}/jobs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A flow's jobs, newest first */
        get: operations["listJobs"];
        put?: never;
        /**
         * Accept a run to be done in the background; poll it, or get a signed webhook when it ends
         * @description `callbackUrl` (https) and `callbackEvents` (a subset of `flow.completed`, `flow.failed`; both by default) subscribe to its end.
         */
        post: operations["startJob"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/seq/{org}/{project}/{flow}/jobs/{executionId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A job's status, and its result once completed */
        get: operations["getJob"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/seq/{org}/{project}/{flow}/jobs/{executionId}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Cancel a job that has not ended: it fails with reason `cancelled` (and `flow.failed` is sent) */
        post: operations["cancelJob"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/seq/{org}/{project}/{flow}/runs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** All of a flow's runs (sync, jobs, step, test), newest first */
        get: operations["listRuns"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/seq/{org}/{project}/{flow}/runs/{executionId}/approvals/{stepId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Approve or reject the approval a run waits at
         * @description Once per approval: a second decision is 409 APPROVAL_ALREADY_DECIDED, one for a run not waiting there 409 APPROVAL_NOT_WAITING, one by a caller the block does not name (by role or subject) 403. The run then goes on as a job: poll GET .../jobs/{executionId}. An addition to the spec.
         */
        post: operations["decideApproval"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/seq/{org}/{project}/{flow}/runs/{executionId}/data": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Erase a run's personal data: its input, prompts, replies, tool calls and results, result and webhook bodies
         * @description The run's data key is removed, so what it was sealed with reads as erased everywhere; what the run did (timeline, statuses, tokens, cost, hashes) stays and the log still verifies. Only a run that has ended; erasing again answers the first erasure. `reason` is recorded with it.
         */
        delete: operations["eraseRunData"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/seq/{org}/{project}/{flow}/step": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Run (or resume) the production version, streaming its steps as server-sent events */
        post: operations["stepFlow"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/seq/{org}/{project}/{flow}/step/{executionId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A run's events again: those after `Last-Event-ID` from the log, then the live ones */
        get: operations["followStep"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
};
export type webhooks = {
    "flow.completed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * flow.completed: a /jobs run ended
         * @description Signed: `X-Service-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">` (and `v2` with the previous secret during a rotation grace window); `X-Service-Delivery` is the idempotency key, the same for every attempt. Answer 2xx within 20 s; a 408, 429, 5xx, network error or timeout is retried 1 min, 5 min, 30 min, 2 h and 12 h after each failure; 3xx and other 4xx are not.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["WebhookPayload"];
                };
            };
            responses: {
                /** @description Received (any 2xx) */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "flow.failed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * flow.failed: a /jobs run ended
         * @description Signed: `X-Service-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">` (and `v2` with the previous secret during a rotation grace window); `X-Service-Delivery` is the idempotency key, the same for every attempt. Answer 2xx within 20 s; a 408, 429, 5xx, network error or timeout is retried 1 min, 5 min, 30 min, 2 h and 12 h after each failure; 3xx and other 4xx are not.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["WebhookPayload"];
                };
            };
            responses: {
                /** @description Received (any 2xx) */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "flow.waiting": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * flow.waiting: a /jobs run waits for an approval (only when callbackEvents names it)
         * @description Signed: `X-Service-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">` (and `v2` with the previous secret during a rotation grace window); `X-Service-Delivery` is the idempotency key, the same for every attempt. Answer 2xx within 20 s; a 408, 429, 5xx, network error or timeout is retried 1 min, 5 min, 30 min, 2 h and 12 h after each failure; 3xx and other 4xx are not.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["WebhookPayload"];
                };
            };
            responses: {
                /** @description Received (any 2xx) */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
};
export type components = {
    schemas: {
        ApprovalDecided: {
            /** Format: date-time */
            decidedAt: string;
            /** @description The decider's subject (`api-key:<id>` for an API key) */
            decidedBy: string;
            /** @enum {string} */
            decision: "approved" | "rejected";
            executionId: string;
            /** @enum {string} */
            role: "owner" | "admin" | "member";
            stepId: string;
        };
        ApprovalDecidedInput: {
            /** Format: date-time */
            decidedAt: string;
            /** @description The decider's subject (`api-key:<id>` for an API key) */
            decidedBy: string;
            /** @enum {string} */
            decision: "approved" | "rejected";
            executionId: string;
            /** @enum {string} */
            role: "owner" | "admin" | "member";
            stepId: string;
        };
        AssistantEnded: {
            clientId: string;
            /** @description False when it had been ended already */
            recorded: boolean;
            /** @constant */
            revoked: true;
        };
        AssistantEndedInput: {
            clientId: string;
            /** @description False when it had been ended already */
            recorded: boolean;
            /** @constant */
            revoked: true;
        };
        Delivery: {
            attempts: number;
            /** Format: date-time */
            createdAt: string;
            errorExcerpt: string | null;
            /** @enum {string} */
            event: "flow.completed" | "flow.failed" | "flow.waiting";
            executionId: string;
            id: string;
            nextAttemptAt: string | null;
            responseStatus: number | null;
            status: string;
        };
        DeliveryInput: {
            attempts: number;
            /** Format: date-time */
            createdAt: string;
            errorExcerpt: string | null;
            /** @enum {string} */
            event: "flow.completed" | "flow.failed" | "flow.waiting";
            executionId: string;
            id: string;
            nextAttemptAt: string | null;
            responseStatus: number | null;
            status: string;
        };
        DeliveryPage: {
            items: components["schemas"]["Delivery"][];
            /** @description Pass back as `cursor` for the next page; null on the last */
            nextCursor: string | null;
        };
        DeliveryPageInput: {
            items: components["schemas"]["DeliveryInput"][];
            /** @description Pass back as `cursor` for the next page; null on the last */
            nextCursor: string | null;
        };
        ExecuteAnswer: {
            blockCount: number;
            executionId: string;
            flowId: string;
            /** @description The run's result: the last block's output as an object (a non-object output is wrapped as `{output}`) */
            result: {
                [key: string]: unknown;
            };
            /** @constant */
            status: "completed";
        } | {
            accumulatedOutputs: {
                [key: string]: unknown;
            };
            executionId: string;
            iterationsUsed: number;
            /** @description The block waiting for tool results: send it back as `pausedAtStep` */
            pausedAtStep: string;
            /** @constant */
            status: "tool_calls_required";
            /** @description The conversation so far: append one `{role: "tool", tool_call_id, content}` per tool call and send it back */
            toolCallMessages: unknown[];
            toolCalls: {
                function: {
                    /** @description JSON text of the arguments, as the model wrote it */
                    arguments: string;
                    name: string;
                };
                id: string;
            }[];
        };
        ExecuteAnswerInput: {
            blockCount: number;
            executionId: string;
            flowId: string;
            /** @description The run's result: the last block's output as an object (a non-object output is wrapped as `{output}`) */
            result: {
                [key: string]: unknown;
            };
            /** @constant */
            status: "completed";
        } | {
            accumulatedOutputs: {
                [key: string]: unknown;
            };
            executionId: string;
            iterationsUsed: number;
            /** @description The block waiting for tool results: send it back as `pausedAtStep` */
            pausedAtStep: string;
            /** @constant */
            status: "tool_calls_required";
            /** @description The conversation so far: append one `{role: "tool", tool_call_id, content}` per tool call and send it back */
            toolCallMessages: unknown[];
            toolCalls: {
                function: {
                    /** @description JSON text of the arguments, as the model wrote it */
                    arguments: string;
                    name: string;
                };
                id: string;
            }[];
        };
        /** @description The run waits for an approval (202): it goes on as a job once decided; poll GET .../jobs/{executionId} */
        ExecuteWaiting: {
            accumulatedOutputs: {
                [key: string]: unknown;
            };
            blockCount: number;
            executionId: string;
            flowId: string;
            /** @constant */
            status: "approval_required";
            waitingFor: components["schemas"]["WaitingFor"];
        };
        /** @description The run waits for an approval (202): it goes on as a job once decided; poll GET .../jobs/{executionId} */
        ExecuteWaitingInput: {
            accumulatedOutputs: {
                [key: string]: unknown;
            };
            blockCount: number;
            executionId: string;
            flowId: string;
            /** @constant */
            status: "approval_required";
            waitingFor: components["schemas"]["WaitingForInput"];
        };
        Flow: {
            draftBlockCount: number;
            flowId: string;
            name: string;
            productionVersion: {
                blockCount: number;
                number: number;
                /** Format: date-time */
                publishedAt: string;
                versionId: string;
            } | null;
            slug: string;
        };
        FlowInput: {
            draftBlockCount: number;
            flowId: string;
            name: string;
            productionVersion: {
                blockCount: number;
                number: number;
                /** Format: date-time */
                publishedAt: string;
                versionId: string;
            } | null;
            slug: string;
        };
        Health: {
            database: {
                error?: string;
                ok: boolean;
            };
            eventLog: {
                error?: string;
                kind: string;
                ok: boolean;
            };
            /** @description What this process knows is wrong with itself, counted by code (e.g. WEBHOOK_SECRETS_UNREADABLE) */
            problems: {
                code: string;
                count: number;
                message: string;
            }[];
            projections: {
                detail: {
                    [key: string]: unknown;
                }[];
                maxBehind: number;
            };
            /** @description Where this process's polls and listings were read: each read replica (DATABASE_READ_URLS; host, port and database; down after it failed, until it is tried again) and the primary; waitedOut: reads that found no read model showing the caller's writes within SEQFLOW_READ_WAIT_MS and read the primary as it was */
            reads?: {
                primaryReads: number;
                replicas: {
                    lastError: string | null;
                    reads: number;
                    replica: string;
                    /** @enum {string} */
                    state: "up" | "down";
                }[];
                waitedOut: number;
            };
            /** @enum {string} */
            status: "ok" | "degraded" | "unavailable";
            tasks: {
                [key: string]: unknown;
            }[];
            /** @description The watchdog's last check in this process (null where none runs): work that should have moved and did not, counted by kind (silent_run, job_over_claims, delivery_over_claims, projection_behind, schedule_overdue) */
            watchdog: {
                /** Format: date-time */
                checkedAt: string;
                counts: {
                    [key: string]: number;
                };
            } | null;
        };
        HealthInput: {
            database: {
                error?: string;
                ok: boolean;
            };
            eventLog: {
                error?: string;
                kind: string;
                ok: boolean;
            };
            /** @description What this process knows is wrong with itself, counted by code (e.g. WEBHOOK_SECRETS_UNREADABLE) */
            problems: {
                code: string;
                count: number;
                message: string;
            }[];
            projections: {
                detail: {
                    [key: string]: unknown;
                }[];
                maxBehind: number;
            };
            /** @description Where this process's polls and listings were read: each read replica (DATABASE_READ_URLS; host, port and database; down after it failed, until it is tried again) and the primary; waitedOut: reads that found no read model showing the caller's writes within SEQFLOW_READ_WAIT_MS and read the primary as it was */
            reads?: {
                primaryReads: number;
                replicas: {
                    lastError: string | null;
                    reads: number;
                    replica: string;
                    /** @enum {string} */
                    state: "up" | "down";
                }[];
                waitedOut: number;
            };
            /** @enum {string} */
            status: "ok" | "degraded" | "unavailable";
            tasks: {
                [key: string]: unknown;
            }[];
            /** @description The watchdog's last check in this process (null where none runs): work that should have moved and did not, counted by kind (silent_run, job_over_claims, delivery_over_claims, projection_behind, schedule_overdue) */
            watchdog: {
                /** Format: date-time */
                checkedAt: string;
                counts: {
                    [key: string]: number;
                };
            } | null;
        };
        Job: {
            completedAt: string | null;
            /** Format: date-time */
            createdAt: string;
            /**
             * Format: date-time
             * @description Only once the run's data was erased: its result then reads null
             */
            dataErasedAt?: string;
            durationMs: number | null;
            /** @description Only when failed */
            errorCode?: string | null;
            /** @description Only when failed */
            errorMessage?: string | null;
            executionId: string;
            /** @description Only when failed */
            failureReason?: ("error" | "credits_exhausted" | "byok_rejected" | "cancelled") | null;
            flowId: string;
            /** @description Only when completed */
            result?: {
                [key: string]: unknown;
            } | null;
            startedAt: string | null;
            /** @enum {string} */
            status: "started" | "running" | "completed" | "failed";
            /** @description Only while the run waits for an approval (status reads running meanwhile; an addition to the spec) */
            waitingFor?: components["schemas"]["WaitingFor"];
        };
        JobAccepted: {
            blockCount: number;
            executionId: string;
            flowId: string;
            /** @constant */
            status: "started";
        };
        JobAcceptedInput: {
            blockCount: number;
            executionId: string;
            flowId: string;
            /** @constant */
            status: "started";
        };
        JobInput: {
            completedAt: string | null;
            /** Format: date-time */
            createdAt: string;
            /**
             * Format: date-time
             * @description Only once the run's data was erased: its result then reads null
             */
            dataErasedAt?: string;
            durationMs: number | null;
            /** @description Only when failed */
            errorCode?: string | null;
            /** @description Only when failed */
            errorMessage?: string | null;
            executionId: string;
            /** @description Only when failed */
            failureReason?: ("error" | "credits_exhausted" | "byok_rejected" | "cancelled") | null;
            flowId: string;
            /** @description Only when completed */
            result?: {
                [key: string]: unknown;
            } | null;
            startedAt: string | null;
            /** @enum {string} */
            status: "started" | "running" | "completed" | "failed";
            /** @description Only while the run waits for an approval (status reads running meanwhile; an addition to the spec) */
            waitingFor?: components["schemas"]["WaitingForInput"];
        };
        /** @description A job as listed: its result is left out (poll the job for it) */
        JobListItem: {
            completedAt: string | null;
            /** Format: date-time */
            createdAt: string;
            /**
             * Format: date-time
             * @description Only once the run's data was erased: its result then reads null
             */
            dataErasedAt?: string;
            durationMs: number | null;
            /** @description Only when failed */
            errorCode?: string | null;
            /** @description Only when failed */
            errorMessage?: string | null;
            executionId: string;
            /** @description Only when failed */
            failureReason?: ("error" | "credits_exhausted" | "byok_rejected" | "cancelled") | null;
            flowId: string;
            startedAt: string | null;
            /** @enum {string} */
            status: "started" | "running" | "completed" | "failed";
            /** @description Only while the run waits for an approval (status reads running meanwhile; an addition to the spec) */
            waitingFor?: components["schemas"]["WaitingFor"];
        };
        /** @description A job as listed: its result is left out (poll the job for it) */
        JobListItemInput: {
            completedAt: string | null;
            /** Format: date-time */
            createdAt: string;
            /**
             * Format: date-time
             * @description Only once the run's data was erased: its result then reads null
             */
            dataErasedAt?: string;
            durationMs: number | null;
            /** @description Only when failed */
            errorCode?: string | null;
            /** @description Only when failed */
            errorMessage?: string | null;
            executionId: string;
            /** @description Only when failed */
            failureReason?: ("error" | "credits_exhausted" | "byok_rejected" | "cancelled") | null;
            flowId: string;
            startedAt: string | null;
            /** @enum {string} */
            status: "started" | "running" | "completed" | "failed";
            /** @description Only while the run waits for an approval (status reads running meanwhile; an addition to the spec) */
            waitingFor?: components["schemas"]["WaitingForInput"];
        };
        JobPage: {
            items: components["schemas"]["JobListItem"][];
            /** @description Pass back as `cursor` for the next page; null on the last */
            nextCursor: string | null;
        };
        JobPageInput: {
            items: components["schemas"]["JobListItemInput"][];
            /** @description Pass back as `cursor` for the next page; null on the last */
            nextCursor: string | null;
        };
        OrganizationAssistants: {
            items: {
                clientId: string;
                /** @description Its own name for itself (a metadata-document client names itself in its document) */
                clientName: string | null;
                redirectUris: string[];
                /** Format: date-time */
                registeredAt: string;
                /** @description The organization's members it acts for */
                subjects: string[];
            }[];
        };
        OrganizationAssistantsInput: {
            items: {
                clientId: string;
                /** @description Its own name for itself (a metadata-document client names itself in its document) */
                clientName: string | null;
                redirectUris: string[];
                /** Format: date-time */
                registeredAt: string;
                /** @description The organization's members it acts for */
                subjects: string[];
            }[];
        };
        RotatedWebhookSecret: {
            /** Format: date-time */
            createdAt: string;
            /** @description While the previous secret still signs `v2` */
            graceUntil: string | null;
            /** @description Shown once */
            newSecret: string;
            rotatedAt: string | null;
            secretPreview: string;
            version: number;
        };
        RotatedWebhookSecretInput: {
            /** Format: date-time */
            createdAt: string;
            /** @description While the previous secret still signs `v2` */
            graceUntil: string | null;
            /** @description Shown once */
            newSecret: string;
            rotatedAt: string | null;
            secretPreview: string;
            version: number;
        };
        Run: {
            /** Format: date-time */
            createdAt: string;
            /** @description When the run's data was erased (DELETE .../runs/{executionId}/data, or its retention period), or null */
            dataErasedAt: string | null;
            durationMs: number | null;
            endedAt: string | null;
            executionId: string;
            failureCode: string | null;
            flowId: string;
            /** @enum {string} */
            mode: "sync" | "async" | "step" | "test" | "backtest" | "subflow";
            /** @description The schedule whose firing started this job (`seqflow schedule`), or null */
            scheduleId: string | null;
            /** @enum {string} */
            status: "queued" | "running" | "retrying" | "paused" | "waiting" | "completed" | "failed";
            versionNumber: number | null;
        };
        RunErasure: {
            /** @description The runs derived from it (reruns, backtest replays, test runs of test cases made from it, and theirs), erased with it */
            derived: {
                /**
                 * @description How it is linked to the erased run: a rerun, a backtest replay, a test run of a case made from it, a child run of one of its flow blocks (subflow), or the run whose flow block started it (parent_run)
                 * @enum {string}
                 */
                derivation: "rerun" | "backtest_replay" | "test_run" | "subflow" | "parent_run";
                erasedAt: string | null;
                erasedNow: boolean;
                error: {
                    code: string;
                    message: string;
                } | null;
                executionId: string;
                from: string;
            }[];
            /**
             * Format: date-time
             * @description When its data was erased: now, or by an earlier erasure, which stands
             */
            erasedAt: string;
            /** @description false: it was erased before this request */
            erasedNow: boolean;
            executionId: string;
            /** @description Test cases made from it: they keep their own copy of its input; delete them too if they hold the person's data */
            testCasesKept: {
                from: string;
                name: string;
                testCaseId: string;
            }[];
        };
        RunErasureInput: {
            /** @description The runs derived from it (reruns, backtest replays, test runs of test cases made from it, and theirs), erased with it */
            derived: {
                /**
                 * @description How it is linked to the erased run: a rerun, a backtest replay, a test run of a case made from it, a child run of one of its flow blocks (subflow), or the run whose flow block started it (parent_run)
                 * @enum {string}
                 */
                derivation: "rerun" | "backtest_replay" | "test_run" | "subflow" | "parent_run";
                erasedAt: string | null;
                erasedNow: boolean;
                error: {
                    code: string;
                    message: string;
                } | null;
                executionId: string;
                from: string;
            }[];
            /**
             * Format: date-time
             * @description When its data was erased: now, or by an earlier erasure, which stands
             */
            erasedAt: string;
            /** @description false: it was erased before this request */
            erasedNow: boolean;
            executionId: string;
            /** @description Test cases made from it: they keep their own copy of its input; delete them too if they hold the person's data */
            testCasesKept: {
                from: string;
                name: string;
                testCaseId: string;
            }[];
        };
        RunInput: {
            /** Format: date-time */
            createdAt: string;
            /** @description When the run's data was erased (DELETE .../runs/{executionId}/data, or its retention period), or null */
            dataErasedAt: string | null;
            durationMs: number | null;
            endedAt: string | null;
            executionId: string;
            failureCode: string | null;
            flowId: string;
            /** @enum {string} */
            mode: "sync" | "async" | "step" | "test" | "backtest" | "subflow";
            /** @description The schedule whose firing started this job (`seqflow schedule`), or null */
            scheduleId: string | null;
            /** @enum {string} */
            status: "queued" | "running" | "retrying" | "paused" | "waiting" | "completed" | "failed";
            versionNumber: number | null;
        };
        RunPage: {
            items: components["schemas"]["Run"][];
            /** @description Pass back as `cursor` for the next page; null on the last */
            nextCursor: string | null;
        };
        RunPageInput: {
            items: components["schemas"]["RunInput"][];
            /** @description Pass back as `cursor` for the next page; null on the last */
            nextCursor: string | null;
        };
        StepEvent: {
            data: {
                blockCount: number;
                executionId: string;
                flowId: string;
                versionId: string;
                versionNumber: number;
            };
            /** @constant */
            event: "started";
        } | {
            data: {
                blockId: string;
                blockName: string;
                executionId: string;
                iteration: number | null;
                /** @enum {string} */
                processorType: "llm" | "passthrough" | "code" | "http" | "approval" | "flow";
                stepIndex: number;
            };
            /** @constant */
            event: "step_started";
        } | {
            data: {
                blockId: string;
                blockName: string;
                durationMs: number;
                executionId: string;
                iteration: number | null;
                model: string | null;
                output: unknown;
                stepIndex: number;
                usage: {
                    completionTokens: number;
                    promptTokens: number;
                    totalTokens: number;
                } | null;
            };
            /** @constant */
            event: "step_completed";
        } | {
            data: {
                accumulatedOutputs: {
                    [key: string]: unknown;
                };
                executionId: string;
                iterationsUsed: number;
                /** @description The block waiting for tool results: send it back as `pausedAtStep` */
                pausedAtStep: string;
                /** @constant */
                status: "tool_calls_required";
                /** @description null when the stream is read in another process than the run (the log keeps only their digest) */
                toolCallMessages: unknown[] | null;
                toolCalls: {
                    function: {
                        /** @description JSON text of the arguments, as the model wrote it */
                        arguments: string;
                        name: string;
                    };
                    id: string;
                }[];
            };
            /** @constant */
            event: "step_paused_for_tool_calls";
        } | {
            /** @description A block whose `run_if` was not true: it did not run and later blocks read its output as null. `values`: each path the condition read, with its value then. Sent only with `?events=extended`; without it the stream is exactly the spec's. */
            data: {
                blockId: string;
                blockName: string;
                condition: string;
                executionId: string;
                iteration: number | null;
                stepIndex: number;
                values: {
                    [key: string]: unknown;
                };
            };
            /** @constant */
            event: "step_skipped";
        } | {
            /** @description The run waits for a person at an approval block (an addition to the spec): the stream ends; the run goes on as a job once decided (poll GET .../jobs/{executionId}). */
            data: {
                /** @description Who may decide: members holding one of the roles, or named by their subject */
                approvers: {
                    members: string[];
                    roles: ("owner" | "admin" | "member")[];
                };
                executionId: string;
                /** @enum {string} */
                onTimeout: "reject" | "approve" | "fail";
                /** @constant */
                status: "approval_required";
                stepId: string;
                timeoutMs: number;
            };
            /** @constant */
            event: "step_waiting_for_approval";
        } | {
            data: {
                executionId: string;
                iterationsUsed: number;
                pausedAtStep: string;
            };
            /** @constant */
            event: "resumed";
        } | {
            /** @description A piece of an llm block's reply while its provider streams it, after the block's `step_started` and before its `step_completed` (whose `output` is the whole reply). Sent only to a reader in the process that runs the run; it has no `id` and is not in the log, so a reconnect does not repeat it. Concatenated, a step's deltas are its reply's text (a piece may end inside a character; the next one completes it). */
            data: {
                blockName: string;
                delta: string;
                executionId: string;
                iteration: number | null;
                /** @description The block's id (its step events' `blockId`) */
                stepId: string;
            };
            /** @constant */
            event: "token";
        } | {
            data: {
                blockCount: number;
                executionId: string;
                flowId: string;
                /** @description The run's result: the last block's output as an object (a non-object output is wrapped as `{output}`) */
                result: {
                    [key: string]: unknown;
                };
                /** @constant */
                status: "completed";
            };
            /** @constant */
            event: "completed";
        } | {
            data: {
                code: string;
                executionId: string;
                /** @enum {string} */
                failureReason: "error" | "credits_exhausted" | "byok_rejected" | "cancelled";
                message: string;
                step_name: string | null;
            };
            /** @constant */
            event: "failed";
        };
        StepEventInput: {
            data: {
                blockCount: number;
                executionId: string;
                flowId: string;
                versionId: string;
                versionNumber: number;
            };
            /** @constant */
            event: "started";
        } | {
            data: {
                blockId: string;
                blockName: string;
                executionId: string;
                iteration: number | null;
                /** @enum {string} */
                processorType: "llm" | "passthrough" | "code" | "http" | "approval" | "flow";
                stepIndex: number;
            };
            /** @constant */
            event: "step_started";
        } | {
            data: {
                blockId: string;
                blockName: string;
                durationMs: number;
                executionId: string;
                iteration: number | null;
                model: string | null;
                output: unknown;
                stepIndex: number;
                usage: {
                    completionTokens: number;
                    promptTokens: number;
                    totalTokens: number;
                } | null;
            };
            /** @constant */
            event: "step_completed";
        } | {
            data: {
                accumulatedOutputs: {
                    [key: string]: unknown;
                };
                executionId: string;
                iterationsUsed: number;
                /** @description The block waiting for tool results: send it back as `pausedAtStep` */
                pausedAtStep: string;
                /** @constant */
                status: "tool_calls_required";
                /** @description null when the stream is read in another process than the run (the log keeps only their digest) */
                toolCallMessages: unknown[] | null;
                toolCalls: {
                    function: {
                        /** @description JSON text of the arguments, as the model wrote it */
                        arguments: string;
                        name: string;
                    };
                    id: string;
                }[];
            };
            /** @constant */
            event: "step_paused_for_tool_calls";
        } | {
            /** @description A block whose `run_if` was not true: it did not run and later blocks read its output as null. `values`: each path the condition read, with its value then. Sent only with `?events=extended`; without it the stream is exactly the spec's. */
            data: {
                blockId: string;
                blockName: string;
                condition: string;
                executionId: string;
                iteration: number | null;
                stepIndex: number;
                values: {
                    [key: string]: unknown;
                };
            };
            /** @constant */
            event: "step_skipped";
        } | {
            /** @description The run waits for a person at an approval block (an addition to the spec): the stream ends; the run goes on as a job once decided (poll GET .../jobs/{executionId}). */
            data: {
                /** @description Who may decide: members holding one of the roles, or named by their subject */
                approvers: {
                    members: string[];
                    roles: ("owner" | "admin" | "member")[];
                };
                executionId: string;
                /** @enum {string} */
                onTimeout: "reject" | "approve" | "fail";
                /** @constant */
                status: "approval_required";
                stepId: string;
                timeoutMs: number;
            };
            /** @constant */
            event: "step_waiting_for_approval";
        } | {
            data: {
                executionId: string;
                iterationsUsed: number;
                pausedAtStep: string;
            };
            /** @constant */
            event: "resumed";
        } | {
            /** @description A piece of an llm block's reply while its provider streams it, after the block's `step_started` and before its `step_completed` (whose `output` is the whole reply). Sent only to a reader in the process that runs the run; it has no `id` and is not in the log, so a reconnect does not repeat it. Concatenated, a step's deltas are its reply's text (a piece may end inside a character; the next one completes it). */
            data: {
                blockName: string;
                delta: string;
                executionId: string;
                iteration: number | null;
                /** @description The block's id (its step events' `blockId`) */
                stepId: string;
            };
            /** @constant */
            event: "token";
        } | {
            data: {
                blockCount: number;
                executionId: string;
                flowId: string;
                /** @description The run's result: the last block's output as an object (a non-object output is wrapped as `{output}`) */
                result: {
                    [key: string]: unknown;
                };
                /** @constant */
                status: "completed";
            };
            /** @constant */
            event: "completed";
        } | {
            data: {
                code: string;
                executionId: string;
                /** @enum {string} */
                failureReason: "error" | "credits_exhausted" | "byok_rejected" | "cancelled";
                message: string;
                step_name: string | null;
            };
            /** @constant */
            event: "failed";
        };
        WaitingFor: {
            /** @description Who may decide: members holding one of the roles, or named by their subject */
            approvers: {
                members: string[];
                roles: ("owner" | "admin" | "member")[];
            };
            /**
             * Format: date-time
             * @description When the timeout policy decides, if nobody has (the sweep decides on the database clock, within a few seconds of it)
             */
            dueAt: string;
            /** @enum {string} */
            onTimeout: "reject" | "approve" | "fail";
            /** Format: date-time */
            requestedAt: string;
            /** @description The approval block: decide it with POST .../runs/{executionId}/approvals/{stepId} */
            stepId: string;
            timeoutMs: number;
            /** @constant */
            type: "approval";
        };
        WaitingForInput: {
            /** @description Who may decide: members holding one of the roles, or named by their subject */
            approvers: {
                members: string[];
                roles: ("owner" | "admin" | "member")[];
            };
            /**
             * Format: date-time
             * @description When the timeout policy decides, if nobody has (the sweep decides on the database clock, within a few seconds of it)
             */
            dueAt: string;
            /** @enum {string} */
            onTimeout: "reject" | "approve" | "fail";
            /** Format: date-time */
            requestedAt: string;
            /** @description The approval block: decide it with POST .../runs/{executionId}/approvals/{stepId} */
            stepId: string;
            timeoutMs: number;
            /** @constant */
            type: "approval";
        };
        WebhookPayload: {
            /** @description Stable across retries: the idempotency key of the delivery */
            deliveryId: string;
            durationMs: number;
            /** @description flow.failed: why; cut (naming its full length) when it would take the body over 256 KB */
            errorMessage?: string;
            /** @enum {string} */
            event: "flow.completed" | "flow.failed" | "flow.waiting";
            executionId: string;
            /**
             * @description flow.failed: a cancelled run is `error`, its message naming the cancellation
             * @enum {string}
             */
            failureReason?: "error" | "credits_exhausted" | "byok_rejected";
            flowId: string;
            /** Format: date-time */
            occurredAt: string;
            organizationId: string;
            /** @description flow.completed: the result, or `{truncated: true, sizeBytes, fetchFrom}` over 256 KB; flow.failed and flow.waiting: null */
            result: unknown;
            truncated: boolean;
            /** @description flow.waiting (sent only when callbackEvents names it; an addition to the spec): what the run waits for */
            waitingFor?: components["schemas"]["WaitingFor"];
        };
        WebhookPayloadInput: {
            /** @description Stable across retries: the idempotency key of the delivery */
            deliveryId: string;
            durationMs: number;
            /** @description flow.failed: why; cut (naming its full length) when it would take the body over 256 KB */
            errorMessage?: string;
            /** @enum {string} */
            event: "flow.completed" | "flow.failed" | "flow.waiting";
            executionId: string;
            /**
             * @description flow.failed: a cancelled run is `error`, its message naming the cancellation
             * @enum {string}
             */
            failureReason?: "error" | "credits_exhausted" | "byok_rejected";
            flowId: string;
            /** Format: date-time */
            occurredAt: string;
            organizationId: string;
            /** @description flow.completed: the result, or `{truncated: true, sizeBytes, fetchFrom}` over 256 KB; flow.failed and flow.waiting: null */
            result: unknown;
            truncated: boolean;
            /** @description flow.waiting (sent only when callbackEvents names it; an addition to the spec): what the run waits for */
            waitingFor?: components["schemas"]["WaitingForInput"];
        };
        WebhookSecret: {
            /** Format: date-time */
            createdAt: string;
            /** @description While the previous secret still signs `v2` */
            graceUntil: string | null;
            rotatedAt: string | null;
            secretPreview: string;
            version: number;
        };
        WebhookSecretInput: {
            /** Format: date-time */
            createdAt: string;
            /** @description While the previous secret still signs `v2` */
            graceUntil: string | null;
            rotatedAt: string | null;
            secretPreview: string;
            version: number;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
};
export type $defs = Record<string, never>;
export interface operations {
    getHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Health"];
                };
            };
            /** @description URL_INVALID */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "URL_INVALID";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description REQUEST_TIMEOUT */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "REQUEST_TIMEOUT";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description URL_TOO_LONG */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "URL_TOO_LONG";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description HEADERS_TOO_LARGE */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "HEADERS_TOO_LARGE";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "INTERNAL";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description Service Unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Health"];
                };
            };
        };
    };
    listOrganizationAssistants: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Organization id */
                org_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OrganizationAssistants"];
                };
            };
            /** @description URL_INVALID */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "URL_INVALID";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "UNAUTHENTICATED";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "FORBIDDEN";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description ORGANIZATION_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "ORGANIZATION_NOT_FOUND";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description REQUEST_TIMEOUT */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "REQUEST_TIMEOUT";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description URL_TOO_LONG */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "URL_TOO_LONG";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description HEADERS_TOO_LARGE */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "HEADERS_TOO_LARGE";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "INTERNAL";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description DATABASE_UNAVAILABLE, DATABASE_STORAGE_FULL */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "DATABASE_UNAVAILABLE" | "DATABASE_STORAGE_FULL";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
    };
    endOrganizationAssistant: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The assistant's client id (a metadata document's URL, encoded) */
                client_id: string;
                /** @description Organization id */
                org_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AssistantEnded"];
                };
            };
            /** @description URL_INVALID */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "URL_INVALID";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "UNAUTHENTICATED";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "FORBIDDEN";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description ORGANIZATION_NOT_FOUND, NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "ORGANIZATION_NOT_FOUND" | "NOT_FOUND";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description REQUEST_TIMEOUT */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "REQUEST_TIMEOUT";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description URL_TOO_LONG */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "URL_TOO_LONG";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description HEADERS_TOO_LARGE */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "HEADERS_TOO_LARGE";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "INTERNAL";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description DATABASE_UNAVAILABLE, DATABASE_STORAGE_FULL */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "DATABASE_UNAVAILABLE" | "DATABASE_STORAGE_FULL";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
    };
    listWebhookDeliveries: {
        parameters: {
            query?: {
                before?: string;
                limit?: number;
            };
            header?: never;
            path: {
                /** @description Organization id */
                org_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeliveryPage"];
                };
            };
            /** @description URL_INVALID */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "URL_INVALID";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description UNAUTHENTICATED, API_KEY_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "UNAUTHENTICATED" | "API_KEY_REVOKED";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "FORBIDDEN";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description ORGANIZATION_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "ORGANIZATION_NOT_FOUND";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description REQUEST_TIMEOUT */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "REQUEST_TIMEOUT";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description URL_TOO_LONG */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "URL_TOO_LONG";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description VALIDATION_FAILED */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "VALIDATION_FAILED";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description RATE_LIMITED */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "RATE_LIMITED";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description HEADERS_TOO_LARGE */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "HEADERS_TOO_LARGE";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "INTERNAL";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description DATABASE_UNAVAILABLE, DATABASE_STORAGE_FULL */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "DATABASE_UNAVAILABLE" | "DATABASE_STORAGE_FULL";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
    };
    getWebhookSecret: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Organization id */
                org_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookSecret"];
                };
            };
            /** @description URL_INVALID */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "URL_INVALID";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description UNAUTHENTICATED, API_KEY_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "UNAUTHENTICATED" | "API_KEY_REVOKED";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "FORBIDDEN";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description ORGANIZATION_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "ORGANIZATION_NOT_FOUND";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description REQUEST_TIMEOUT */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "REQUEST_TIMEOUT";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description URL_TOO_LONG */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "URL_TOO_LONG";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description RATE_LIMITED */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "RATE_LIMITED";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description HEADERS_TOO_LARGE */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "HEADERS_TOO_LARGE";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "INTERNAL";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description DATABASE_UNAVAILABLE, DATABASE_STORAGE_FULL */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "DATABASE_UNAVAILABLE" | "DATABASE_STORAGE_FULL";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
    };
    rotateWebhookSecret: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Organization id */
                org_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RotatedWebhookSecret"];
                };
            };
            /** @description URL_INVALID */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "URL_INVALID";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "UNAUTHENTICATED";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "FORBIDDEN";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description ORGANIZATION_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "ORGANIZATION_NOT_FOUND";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description REQUEST_TIMEOUT */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "REQUEST_TIMEOUT";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description URL_TOO_LONG */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "URL_TOO_LONG";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description HEADERS_TOO_LARGE */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "HEADERS_TOO_LARGE";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "INTERNAL";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description DATABASE_UNAVAILABLE, DATABASE_STORAGE_FULL */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "DATABASE_UNAVAILABLE" | "DATABASE_STORAGE_FULL";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
    };
    getFlow: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Flow slug */
                flow: string;
                /** @description Organization slug */
                org: string;
                /** @description Project slug */
                project: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Flow"];
                };
            };
            /** @description URL_INVALID */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "URL_INVALID";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description UNAUTHENTICATED, API_KEY_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "UNAUTHENTICATED" | "API_KEY_REVOKED";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description FLOW_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "FLOW_NOT_FOUND";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description REQUEST_TIMEOUT */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "REQUEST_TIMEOUT";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description URL_TOO_LONG */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "URL_TOO_LONG";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description RATE_LIMITED */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "RATE_LIMITED";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description HEADERS_TOO_LARGE */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "HEADERS_TOO_LARGE";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "INTERNAL";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description DATABASE_UNAVAILABLE, DATABASE_STORAGE_FULL */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "DATABASE_UNAVAILABLE" | "DATABASE_STORAGE_FULL";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
    };
    executeFlow: {
        parameters: {
            query?: never;
            header?: {
                /** @description Up to 255 visible ASCII characters: the same key with the same request within 24 h answers the first response again (`Idempotent-Replayed: true`) */
                "idempotency-key"?: string;
                /** @description W3C Trace Context: the run continues your trace (when the service exports traces) */
                traceparent?: string;
                /** @description Your id for the request (1-200 visible ASCII characters): echoed in `X-Request-Id`, in error bodies, logs and the run's events */
                "x-request-id"?: string;
            };
            path: {
                /** @description Flow slug */
                flow: string;
                /** @description Organization slug */
                org: string;
                /** @description Project slug */
                project: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    attachments?: {
                        filename?: string;
                        /** @enum {string} */
                        kind: "url";
                        mime_type: string;
                        url: string;
                    }[];
                    callbackEvents?: unknown;
                    callbackUrl?: unknown;
                    executionId?: string;
                    iterationsUsed?: number;
                    message?: string;
                    parameters?: {
                        [key: string]: unknown;
                    };
                    pausedAtStep?: string;
                    toolCallMessages?: unknown[];
                    toolChoice?: unknown;
                    tools?: unknown[];
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ExecuteAnswer"];
                };
            };
            /** @description Accepted */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ExecuteWaiting"];
                };
            };
            /** @description URL_INVALID, INVALID_JSON, INVALID_TEXT, NESTING_TOO_DEEP, PARAMETER_NAME_RESERVED, ATTACHMENT_LIMIT_EXCEEDED, ATTACHMENT_INVALID_SCHEME, ATTACHMENT_URL_TOO_LONG, ATTACHMENT_UNSUPPORTED_MIME, ATTACHMENT_INVALID_FILENAME, ATTACHMENT_BLOCKED_HOST, MODEL_MIME_INCOMPATIBLE, TOOLS_INVALID, TOOL_NAME_INVALID, EXECUTION_ID_INVALID, PAUSED_STEP_INVALID, TOOL_RESULTS_MISMATCH, TOOL_HISTORY_TAMPERED, INVALID_RESUME, IDEMPOTENCY_KEY_INVALID */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "URL_INVALID" | "INVALID_JSON" | "INVALID_TEXT" | "NESTING_TOO_DEEP" | "PARAMETER_NAME_RESERVED" | "ATTACHMENT_LIMIT_EXCEEDED" | "ATTACHMENT_INVALID_SCHEME" | "ATTACHMENT_URL_TOO_LONG" | "ATTACHMENT_UNSUPPORTED_MIME" | "ATTACHMENT_INVALID_FILENAME" | "ATTACHMENT_BLOCKED_HOST" | "MODEL_MIME_INCOMPATIBLE" | "TOOLS_INVALID" | "TOOL_NAME_INVALID" | "EXECUTION_ID_INVALID" | "PAUSED_STEP_INVALID" | "TOOL_RESULTS_MISMATCH" | "TOOL_HISTORY_TAMPERED" | "INVALID_RESUME" | "IDEMPOTENCY_KEY_INVALID";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description UNAUTHENTICATED, API_KEY_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "UNAUTHENTICATED" | "API_KEY_REVOKED";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description CREDITS_EXHAUSTED */
            402: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "CREDITS_EXHAUSTED";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description FLOW_NOT_FOUND, NO_PRODUCTION_VERSION, EXECUTION_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "FLOW_NOT_FOUND" | "NO_PRODUCTION_VERSION" | "EXECUTION_NOT_FOUND";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description REQUEST_TIMEOUT */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "REQUEST_TIMEOUT";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description TOOL_ITERATION_LIMIT, CONFLICT, IDEMPOTENCY_KEY_IN_USE */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "TOOL_ITERATION_LIMIT" | "CONFLICT" | "IDEMPOTENCY_KEY_IN_USE";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE, MESSAGES_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "PAYLOAD_TOO_LARGE" | "MESSAGES_TOO_LARGE";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description URL_TOO_LONG */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "URL_TOO_LONG";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description REQUEST_INVALID, VALIDATION_FAILED, TOOLS_NOT_ENABLED, TOOLS_IN_NON_SEQUENTIAL_STEP, LOOP_INPUT_INVALID, LOOP_LIMIT_EXCEEDED, RUN_IF_FAILED, CODE_BLOCK_FAILED, CODE_OUTPUT_TOO_LARGE, HTTP_REQUEST_INVALID, HTTP_BLOCKED_HOST, HTTP_SECRET_MISSING, SUBFLOW_NOT_FOUND, SUBFLOW_DEPTH_EXCEEDED, SUBFLOW_UNSUPPORTED, IDEMPOTENCY_KEY_REUSED */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "REQUEST_INVALID" | "VALIDATION_FAILED" | "TOOLS_NOT_ENABLED" | "TOOLS_IN_NON_SEQUENTIAL_STEP" | "LOOP_INPUT_INVALID" | "LOOP_LIMIT_EXCEEDED" | "RUN_IF_FAILED" | "CODE_BLOCK_FAILED" | "CODE_OUTPUT_TOO_LARGE" | "HTTP_REQUEST_INVALID" | "HTTP_BLOCKED_HOST" | "HTTP_SECRET_MISSING" | "SUBFLOW_NOT_FOUND" | "SUBFLOW_DEPTH_EXCEEDED" | "SUBFLOW_UNSUPPORTED" | "IDEMPOTENCY_KEY_REUSED";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description BYOK_REJECTED */
            424: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "BYOK_REJECTED";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description RATE_LIMITED */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "RATE_LIMITED";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description HEADERS_TOO_LARGE */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "HEADERS_TOO_LARGE";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description INTERNAL, TOOLS_UNSUPPORTED, RUN_RECORD_FAILED */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "INTERNAL" | "TOOLS_UNSUPPORTED" | "RUN_RECORD_FAILED";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description MCP_SERVER_FAILED, HTTP_REQUEST_FAILED, HTTP_STATUS_UNEXPECTED, HTTP_RESPONSE_TOO_LARGE, HTTP_RESPONSE_INVALID, MODEL_OUTPUT_INVALID, PROVIDER_ERROR */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "MCP_SERVER_FAILED" | "HTTP_REQUEST_FAILED" | "HTTP_STATUS_UNEXPECTED" | "HTTP_RESPONSE_TOO_LARGE" | "HTTP_RESPONSE_INVALID" | "MODEL_OUTPUT_INVALID" | "PROVIDER_ERROR";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description DATABASE_UNAVAILABLE, DATABASE_STORAGE_FULL, CODE_SANDBOX_BUSY, PROVIDER_NOT_CONFIGURED, RUN_INTERRUPTED */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "DATABASE_UNAVAILABLE" | "DATABASE_STORAGE_FULL" | "CODE_SANDBOX_BUSY" | "PROVIDER_NOT_CONFIGURED" | "RUN_INTERRUPTED";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description PROVIDER_TIMEOUT */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "PROVIDER_TIMEOUT";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
    };
    listJobs: {
        parameters: {
            query?: {
                cursor?: string;
                from?: string;
                limit?: number;
                status?: string;
                to?: string;
            };
            header?: never;
            path: {
                /** @description Flow slug */
                flow: string;
                /** @description Organization slug */
                org: string;
                /** @description Project slug */
                project: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobPage"];
                };
            };
            /** @description URL_INVALID */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "URL_INVALID";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description UNAUTHENTICATED, API_KEY_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "UNAUTHENTICATED" | "API_KEY_REVOKED";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description FLOW_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "FLOW_NOT_FOUND";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description REQUEST_TIMEOUT */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "REQUEST_TIMEOUT";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description URL_TOO_LONG */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "URL_TOO_LONG";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description VALIDATION_FAILED */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "VALIDATION_FAILED";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description RATE_LIMITED */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "RATE_LIMITED";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description HEADERS_TOO_LARGE */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "HEADERS_TOO_LARGE";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "INTERNAL";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description DATABASE_UNAVAILABLE, DATABASE_STORAGE_FULL */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "DATABASE_UNAVAILABLE" | "DATABASE_STORAGE_FULL";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
    };
    startJob: {
        parameters: {
            query?: never;
            header?: {
                /** @description Up to 255 visible ASCII characters: the same key with the same request within 24 h answers the first response again (`Idempotent-Replayed: true`) */
                "idempotency-key"?: string;
                /** @description W3C Trace Context: the run continues your trace (when the service exports traces) */
                traceparent?: string;
                /** @description Your id for the request (1-200 visible ASCII characters): echoed in `X-Request-Id`, in error bodies, logs and the run's events */
                "x-request-id"?: string;
            };
            path: {
                /** @description Flow slug */
                flow: string;
                /** @description Organization slug */
                org: string;
                /** @description Project slug */
                project: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    attachments?: {
                        filename?: string;
                        /** @enum {string} */
                        kind: "url";
                        mime_type: string;
                        url: string;
                    }[];
                    callbackEvents?: unknown;
                    callbackUrl?: unknown;
                    executionId?: string;
                    iterationsUsed?: number;
                    message?: string;
                    parameters?: {
                        [key: string]: unknown;
                    };
                    pausedAtStep?: string;
                    toolCallMessages?: unknown[];
                    toolChoice?: unknown;
                    tools?: unknown[];
                };
            };
        };
        responses: {
            /** @description Accepted */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobAccepted"];
                };
            };
            /** @description URL_INVALID, INVALID_JSON, INVALID_TEXT, NESTING_TOO_DEEP, PARAMETER_NAME_RESERVED, ATTACHMENT_LIMIT_EXCEEDED, ATTACHMENT_INVALID_SCHEME, ATTACHMENT_URL_TOO_LONG, ATTACHMENT_UNSUPPORTED_MIME, ATTACHMENT_INVALID_FILENAME, ATTACHMENT_BLOCKED_HOST, MODEL_MIME_INCOMPATIBLE, CALLBACK_URL_INVALID, CALLBACK_EVENTS_INVALID, INVALID_RESUME, IDEMPOTENCY_KEY_INVALID */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "URL_INVALID" | "INVALID_JSON" | "INVALID_TEXT" | "NESTING_TOO_DEEP" | "PARAMETER_NAME_RESERVED" | "ATTACHMENT_LIMIT_EXCEEDED" | "ATTACHMENT_INVALID_SCHEME" | "ATTACHMENT_URL_TOO_LONG" | "ATTACHMENT_UNSUPPORTED_MIME" | "ATTACHMENT_INVALID_FILENAME" | "ATTACHMENT_BLOCKED_HOST" | "MODEL_MIME_INCOMPATIBLE" | "CALLBACK_URL_INVALID" | "CALLBACK_EVENTS_INVALID" | "INVALID_RESUME" | "IDEMPOTENCY_KEY_INVALID";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description UNAUTHENTICATED, API_KEY_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "UNAUTHENTICATED" | "API_KEY_REVOKED";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description CREDITS_EXHAUSTED */
            402: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "CREDITS_EXHAUSTED";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description FLOW_NOT_FOUND, NO_PRODUCTION_VERSION */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "FLOW_NOT_FOUND" | "NO_PRODUCTION_VERSION";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description TOOLS_REQUIRE_SYNC_EXECUTE */
            405: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "TOOLS_REQUIRE_SYNC_EXECUTE";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description REQUEST_TIMEOUT */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "REQUEST_TIMEOUT";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description IDEMPOTENCY_KEY_IN_USE */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "IDEMPOTENCY_KEY_IN_USE";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "PAYLOAD_TOO_LARGE";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description URL_TOO_LONG */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "URL_TOO_LONG";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description REQUEST_INVALID, VALIDATION_FAILED, IDEMPOTENCY_KEY_REUSED */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "REQUEST_INVALID" | "VALIDATION_FAILED" | "IDEMPOTENCY_KEY_REUSED";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description RATE_LIMITED */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "RATE_LIMITED";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description HEADERS_TOO_LARGE */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "HEADERS_TOO_LARGE";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "INTERNAL";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description DATABASE_UNAVAILABLE, DATABASE_STORAGE_FULL */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "DATABASE_UNAVAILABLE" | "DATABASE_STORAGE_FULL";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
    };
    getJob: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                executionId: string;
                /** @description Flow slug */
                flow: string;
                /** @description Organization slug */
                org: string;
                /** @description Project slug */
                project: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Job"];
                };
            };
            /** @description URL_INVALID, EXECUTION_ID_INVALID */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "URL_INVALID" | "EXECUTION_ID_INVALID";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description UNAUTHENTICATED, API_KEY_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "UNAUTHENTICATED" | "API_KEY_REVOKED";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description FLOW_NOT_FOUND, EXECUTION_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "FLOW_NOT_FOUND" | "EXECUTION_NOT_FOUND";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description REQUEST_TIMEOUT */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "REQUEST_TIMEOUT";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description URL_TOO_LONG */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "URL_TOO_LONG";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description RATE_LIMITED */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "RATE_LIMITED";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description HEADERS_TOO_LARGE */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "HEADERS_TOO_LARGE";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "INTERNAL";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description DATABASE_UNAVAILABLE, DATABASE_STORAGE_FULL */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "DATABASE_UNAVAILABLE" | "DATABASE_STORAGE_FULL";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
    };
    cancelJob: {
        parameters: {
            query?: never;
            header?: {
                /** @description W3C Trace Context: the run continues your trace (when the service exports traces) */
                traceparent?: string;
                /** @description Your id for the request (1-200 visible ASCII characters): echoed in `X-Request-Id`, in error bodies, logs and the run's events */
                "x-request-id"?: string;
            };
            path: {
                executionId: string;
                /** @description Flow slug */
                flow: string;
                /** @description Organization slug */
                org: string;
                /** @description Project slug */
                project: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Recorded with the cancellation */
                    reason?: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Job"];
                };
            };
            /** @description URL_INVALID, INVALID_JSON, INVALID_TEXT, NESTING_TOO_DEEP, EXECUTION_ID_INVALID */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "URL_INVALID" | "INVALID_JSON" | "INVALID_TEXT" | "NESTING_TOO_DEEP" | "EXECUTION_ID_INVALID";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description UNAUTHENTICATED, API_KEY_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "UNAUTHENTICATED" | "API_KEY_REVOKED";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description FLOW_NOT_FOUND, EXECUTION_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "FLOW_NOT_FOUND" | "EXECUTION_NOT_FOUND";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description REQUEST_TIMEOUT */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "REQUEST_TIMEOUT";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description CONFLICT */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "CONFLICT";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "PAYLOAD_TOO_LARGE";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description URL_TOO_LONG */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "URL_TOO_LONG";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description VALIDATION_FAILED */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "VALIDATION_FAILED";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description RATE_LIMITED */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "RATE_LIMITED";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description HEADERS_TOO_LARGE */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "HEADERS_TOO_LARGE";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "INTERNAL";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description DATABASE_UNAVAILABLE, DATABASE_STORAGE_FULL */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "DATABASE_UNAVAILABLE" | "DATABASE_STORAGE_FULL";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
    };
    listRuns: {
        parameters: {
            query?: {
                cursor?: string;
                from?: string;
                limit?: number;
                mode?: string;
                status?: string;
                to?: string;
            };
            header?: never;
            path: {
                /** @description Flow slug */
                flow: string;
                /** @description Organization slug */
                org: string;
                /** @description Project slug */
                project: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RunPage"];
                };
            };
            /** @description URL_INVALID */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "URL_INVALID";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description UNAUTHENTICATED, API_KEY_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "UNAUTHENTICATED" | "API_KEY_REVOKED";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description FLOW_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "FLOW_NOT_FOUND";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description REQUEST_TIMEOUT */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "REQUEST_TIMEOUT";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description URL_TOO_LONG */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "URL_TOO_LONG";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description VALIDATION_FAILED */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "VALIDATION_FAILED";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description RATE_LIMITED */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "RATE_LIMITED";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description HEADERS_TOO_LARGE */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "HEADERS_TOO_LARGE";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "INTERNAL";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description DATABASE_UNAVAILABLE, DATABASE_STORAGE_FULL */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "DATABASE_UNAVAILABLE" | "DATABASE_STORAGE_FULL";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
    };
    decideApproval: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                executionId: string;
                /** @description Flow slug */
                flow: string;
                /** @description Organization slug */
                org: string;
                /** @description Project slug */
                project: string;
                stepId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Why: recorded with the decision (sealed with the run's data) */
                    comment?: string;
                    /** @enum {string} */
                    decision: "approve" | "reject";
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalDecided"];
                };
            };
            /** @description URL_INVALID, INVALID_JSON, INVALID_TEXT, NESTING_TOO_DEEP */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "URL_INVALID" | "INVALID_JSON" | "INVALID_TEXT" | "NESTING_TOO_DEEP";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description UNAUTHENTICATED, API_KEY_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "UNAUTHENTICATED" | "API_KEY_REVOKED";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "FORBIDDEN";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description FLOW_NOT_FOUND, EXECUTION_NOT_FOUND, ORGANIZATION_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "FLOW_NOT_FOUND" | "EXECUTION_NOT_FOUND" | "ORGANIZATION_NOT_FOUND";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description REQUEST_TIMEOUT */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "REQUEST_TIMEOUT";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description APPROVAL_NOT_WAITING, APPROVAL_ALREADY_DECIDED */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "APPROVAL_NOT_WAITING" | "APPROVAL_ALREADY_DECIDED";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "PAYLOAD_TOO_LARGE";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description URL_TOO_LONG */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "URL_TOO_LONG";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description VALIDATION_FAILED */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "VALIDATION_FAILED";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description RATE_LIMITED */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "RATE_LIMITED";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description HEADERS_TOO_LARGE */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "HEADERS_TOO_LARGE";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "INTERNAL";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description DATABASE_UNAVAILABLE, DATABASE_STORAGE_FULL */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "DATABASE_UNAVAILABLE" | "DATABASE_STORAGE_FULL";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
    };
    eraseRunData: {
        parameters: {
            query?: {
                /** @description Why: recorded with the erasure */
                reason?: string;
            };
            header?: never;
            path: {
                executionId: string;
                /** @description Flow slug */
                flow: string;
                /** @description Organization slug */
                org: string;
                /** @description Project slug */
                project: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RunErasure"];
                };
            };
            /** @description URL_INVALID, EXECUTION_ID_INVALID */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "URL_INVALID" | "EXECUTION_ID_INVALID";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description UNAUTHENTICATED, API_KEY_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "UNAUTHENTICATED" | "API_KEY_REVOKED";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description FLOW_NOT_FOUND, EXECUTION_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "FLOW_NOT_FOUND" | "EXECUTION_NOT_FOUND";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description REQUEST_TIMEOUT */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "REQUEST_TIMEOUT";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description CONFLICT */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "CONFLICT";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description URL_TOO_LONG */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "URL_TOO_LONG";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description VALIDATION_FAILED */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "VALIDATION_FAILED";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description RATE_LIMITED */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "RATE_LIMITED";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description HEADERS_TOO_LARGE */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "HEADERS_TOO_LARGE";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "INTERNAL";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description DATABASE_UNAVAILABLE, DATABASE_STORAGE_FULL */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "DATABASE_UNAVAILABLE" | "DATABASE_STORAGE_FULL";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
    };
    stepFlow: {
        parameters: {
            query?: {
                /** @description extended: also send step_skipped events (blocks whose run_if was not true); without it, exactly the spec's events */
                events?: "extended";
            };
            header?: {
                /** @description W3C Trace Context: the run continues your trace (when the service exports traces) */
                traceparent?: string;
                /** @description Your id for the request (1-200 visible ASCII characters): echoed in `X-Request-Id`, in error bodies, logs and the run's events */
                "x-request-id"?: string;
            };
            path: {
                /** @description Flow slug */
                flow: string;
                /** @description Organization slug */
                org: string;
                /** @description Project slug */
                project: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    attachments?: {
                        filename?: string;
                        /** @enum {string} */
                        kind: "url";
                        mime_type: string;
                        url: string;
                    }[];
                    callbackEvents?: unknown;
                    callbackUrl?: unknown;
                    executionId?: string;
                    iterationsUsed?: number;
                    message?: string;
                    parameters?: {
                        [key: string]: unknown;
                    };
                    pausedAtStep?: string;
                    toolCallMessages?: unknown[];
                    toolChoice?: unknown;
                    tools?: unknown[];
                };
            };
        };
        responses: {
            /** @description Events: `started`, `step_started`, `step_completed`, `step_paused_for_tool_calls`, `step_waiting_for_approval` (a run at an approval block: an addition to the spec; the stream ends), `resumed`, `completed`, `failed`, and `token` (a piece of an llm block's reply while it is written; no id, not recorded: a client may ignore it); with `?events=extended`, also `step_skipped` (a block whose `run_if` was not true: its condition and the values it read); each `data` is a JSON object (the `StepEvent` schema, by event name) and each `id` the event's position in the run (send it back as `Last-Event-ID` to resume the stream); a `step_started` told by its block's completion event has the id half a revision before it (`4.5`, then `5`). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                };
            };
            /** @description URL_INVALID, INVALID_JSON, INVALID_TEXT, NESTING_TOO_DEEP, PARAMETER_NAME_RESERVED, ATTACHMENT_LIMIT_EXCEEDED, ATTACHMENT_INVALID_SCHEME, ATTACHMENT_URL_TOO_LONG, ATTACHMENT_UNSUPPORTED_MIME, ATTACHMENT_INVALID_FILENAME, ATTACHMENT_BLOCKED_HOST, MODEL_MIME_INCOMPATIBLE, TOOLS_INVALID, TOOL_NAME_INVALID, EXECUTION_ID_INVALID, PAUSED_STEP_INVALID, TOOL_RESULTS_MISMATCH, TOOL_HISTORY_TAMPERED, INVALID_RESUME */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "URL_INVALID" | "INVALID_JSON" | "INVALID_TEXT" | "NESTING_TOO_DEEP" | "PARAMETER_NAME_RESERVED" | "ATTACHMENT_LIMIT_EXCEEDED" | "ATTACHMENT_INVALID_SCHEME" | "ATTACHMENT_URL_TOO_LONG" | "ATTACHMENT_UNSUPPORTED_MIME" | "ATTACHMENT_INVALID_FILENAME" | "ATTACHMENT_BLOCKED_HOST" | "MODEL_MIME_INCOMPATIBLE" | "TOOLS_INVALID" | "TOOL_NAME_INVALID" | "EXECUTION_ID_INVALID" | "PAUSED_STEP_INVALID" | "TOOL_RESULTS_MISMATCH" | "TOOL_HISTORY_TAMPERED" | "INVALID_RESUME";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description UNAUTHENTICATED, API_KEY_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "UNAUTHENTICATED" | "API_KEY_REVOKED";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description CREDITS_EXHAUSTED */
            402: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "CREDITS_EXHAUSTED";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description FLOW_NOT_FOUND, NO_PRODUCTION_VERSION, EXECUTION_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "FLOW_NOT_FOUND" | "NO_PRODUCTION_VERSION" | "EXECUTION_NOT_FOUND";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description REQUEST_TIMEOUT */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "REQUEST_TIMEOUT";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description TOOL_ITERATION_LIMIT, CONFLICT */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "TOOL_ITERATION_LIMIT" | "CONFLICT";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE, MESSAGES_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "PAYLOAD_TOO_LARGE" | "MESSAGES_TOO_LARGE";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description URL_TOO_LONG */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "URL_TOO_LONG";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description REQUEST_INVALID, VALIDATION_FAILED, TOOLS_NOT_ENABLED, TOOLS_IN_NON_SEQUENTIAL_STEP, LOOP_INPUT_INVALID, LOOP_LIMIT_EXCEEDED, RUN_IF_FAILED, CODE_BLOCK_FAILED, CODE_OUTPUT_TOO_LARGE, HTTP_REQUEST_INVALID, HTTP_BLOCKED_HOST, HTTP_SECRET_MISSING, SUBFLOW_NOT_FOUND, SUBFLOW_DEPTH_EXCEEDED, SUBFLOW_UNSUPPORTED */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "REQUEST_INVALID" | "VALIDATION_FAILED" | "TOOLS_NOT_ENABLED" | "TOOLS_IN_NON_SEQUENTIAL_STEP" | "LOOP_INPUT_INVALID" | "LOOP_LIMIT_EXCEEDED" | "RUN_IF_FAILED" | "CODE_BLOCK_FAILED" | "CODE_OUTPUT_TOO_LARGE" | "HTTP_REQUEST_INVALID" | "HTTP_BLOCKED_HOST" | "HTTP_SECRET_MISSING" | "SUBFLOW_NOT_FOUND" | "SUBFLOW_DEPTH_EXCEEDED" | "SUBFLOW_UNSUPPORTED";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description BYOK_REJECTED */
            424: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "BYOK_REJECTED";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description RATE_LIMITED */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "RATE_LIMITED";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description HEADERS_TOO_LARGE */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "HEADERS_TOO_LARGE";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description INTERNAL, TOOLS_UNSUPPORTED, RUN_RECORD_FAILED */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "INTERNAL" | "TOOLS_UNSUPPORTED" | "RUN_RECORD_FAILED";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description MCP_SERVER_FAILED, HTTP_REQUEST_FAILED, HTTP_STATUS_UNEXPECTED, HTTP_RESPONSE_TOO_LARGE, HTTP_RESPONSE_INVALID, MODEL_OUTPUT_INVALID, PROVIDER_ERROR */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "MCP_SERVER_FAILED" | "HTTP_REQUEST_FAILED" | "HTTP_STATUS_UNEXPECTED" | "HTTP_RESPONSE_TOO_LARGE" | "HTTP_RESPONSE_INVALID" | "MODEL_OUTPUT_INVALID" | "PROVIDER_ERROR";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description DATABASE_UNAVAILABLE, DATABASE_STORAGE_FULL, CODE_SANDBOX_BUSY, PROVIDER_NOT_CONFIGURED, RUN_INTERRUPTED */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "DATABASE_UNAVAILABLE" | "DATABASE_STORAGE_FULL" | "CODE_SANDBOX_BUSY" | "PROVIDER_NOT_CONFIGURED" | "RUN_INTERRUPTED";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description PROVIDER_TIMEOUT */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "PROVIDER_TIMEOUT";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
    };
    followStep: {
        parameters: {
            query?: {
                /** @description extended: also send step_skipped events (blocks whose run_if was not true); without it, exactly the spec's events */
                events?: "extended";
                /** @description As the Last-Event-ID header, for clients that cannot send it */
                lastEventId?: string;
            };
            header?: {
                /** @description The id of the last event received */
                "last-event-id"?: string;
                /** @description W3C Trace Context: the run continues your trace (when the service exports traces) */
                traceparent?: string;
                /** @description Your id for the request (1-200 visible ASCII characters): echoed in `X-Request-Id`, in error bodies, logs and the run's events */
                "x-request-id"?: string;
            };
            path: {
                executionId: string;
                /** @description Flow slug */
                flow: string;
                /** @description Organization slug */
                org: string;
                /** @description Project slug */
                project: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Events: `started`, `step_started`, `step_completed`, `step_paused_for_tool_calls`, `step_waiting_for_approval` (a run at an approval block: an addition to the spec; the stream ends), `resumed`, `completed`, `failed`, and `token` (a piece of an llm block's reply while it is written; no id, not recorded: a client may ignore it); with `?events=extended`, also `step_skipped` (a block whose `run_if` was not true: its condition and the values it read); each `data` is a JSON object (the `StepEvent` schema, by event name) and each `id` the event's position in the run (send it back as `Last-Event-ID` to resume the stream); a `step_started` told by its block's completion event has the id half a revision before it (`4.5`, then `5`). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                };
            };
            /** @description URL_INVALID, EXECUTION_ID_INVALID */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "URL_INVALID" | "EXECUTION_ID_INVALID";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description UNAUTHENTICATED, API_KEY_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "UNAUTHENTICATED" | "API_KEY_REVOKED";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description FLOW_NOT_FOUND, EXECUTION_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "FLOW_NOT_FOUND" | "EXECUTION_NOT_FOUND";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description REQUEST_TIMEOUT */
            408: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "REQUEST_TIMEOUT";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description URL_TOO_LONG */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "URL_TOO_LONG";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description VALIDATION_FAILED */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "VALIDATION_FAILED";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description RATE_LIMITED */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "RATE_LIMITED";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description HEADERS_TOO_LARGE */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "HEADERS_TOO_LARGE";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "INTERNAL";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description DATABASE_UNAVAILABLE, DATABASE_STORAGE_FULL */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        detail: {
                            /** @enum {string} */
                            code: "DATABASE_UNAVAILABLE" | "DATABASE_STORAGE_FULL";
                            message: string;
                            /** @description The request id (X-Request-Id) to quote to support */
                            requestId?: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
    };
}
