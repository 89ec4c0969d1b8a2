// Generated from the api role's OpenAPI document by `npx nx run ui:api-types`: do not edit.

export type paths = {
    "/api/v1/{tenant}/api-tokens": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The tenant's API tokens, newest first, without their values */
        get: operations["ApiTokensController_list"];
        put?: never;
        /** Create an API token (for CI): its value is in this answer only */
        post: operations["ApiTokensController_create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/{tenant}/api-tokens/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Revoke an API token: refused from the next request on */
        delete: operations["ApiTokensController_revoke"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/{tenant}/audit-logs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The tenant's audit log, newest first: who did what, when, from where, and the outcome */
        get: operations["AuditLogsController_search"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/{tenant}/executions/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** An execution with its task runs and their attempts */
        get: operations["ExecutionsController_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/{tenant}/executions/{id}/file": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Download a file of the execution (an output file, a FILE input) by its kestra:/// URI */
        get: operations["ExecutionsController_file"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/{tenant}/executions/{id}/file/preview": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The start of a text, CSV or JSON file of the execution, for display */
        get: operations["ExecutionsController_preview"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/{tenant}/executions/{id}/files": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Purge an ended execution's files from internal storage (its FILE inputs, output files and stored outputs) */
        delete: operations["ExecutionsController_purgeFiles"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/{tenant}/executions/{id}/follow": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Server-sent events: `execution` with the execution after each change, until it ends */
        get: operations["ExecutionsController_follow"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/{tenant}/executions/{id}/kill": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Kill an execution: it moves through KILLING to KILLED */
        delete: operations["ExecutionsController_kill"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/{tenant}/executions/{id}/replay": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Replay an ended execution as a new one: from `taskRunId`, the task runs before it are carried over with their outputs and the flow runs again from it; without it, the whole flow runs again */
        post: operations["ExecutionsController_replay"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/{tenant}/executions/{id}/restart": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Restart a FAILED or KILLED execution: its failed task runs run again */
        post: operations["ExecutionsController_restart"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/{tenant}/executions/{id}/resume": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Resume a PAUSED execution */
        post: operations["ExecutionsController_resume"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/{tenant}/executions/{namespace}/{flowId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Run the latest revision of a flow */
        post: operations["ExecutionsController_create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/{tenant}/executions/search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Search executions, newest first */
        get: operations["ExecutionsController_search"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/{tenant}/executions/stats": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The dashboard: executions created in [from, to) per state over time, success rate, durations p50/p95, the slowest and the failing flows */
        get: operations["ExecutionsController_stats"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/{tenant}/executions/webhook/{namespace}/{flowId}/{key}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Start an execution through a Webhook trigger (no body; the key is the secret) */
        get: operations["WebhooksController_get"];
        /** Start an execution through a Webhook trigger, the body in trigger.body (the key is the secret) */
        put: operations["WebhooksController_put"];
        /** Start an execution through a Webhook trigger, the body in trigger.body (the key is the secret) */
        post: operations["WebhooksController_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/{tenant}/flows": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Create a flow from YAML */
        post: operations["FlowsController_create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/{tenant}/flows/{namespace}/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The live flow, or an older revision with ?revision=N */
        get: operations["FlowsController_get"];
        /** Save a new revision (revision + 1); creates the flow when absent (201) */
        put: operations["FlowsController_save"];
        post?: never;
        /** Delete a flow (its revisions stay in the history) */
        delete: operations["FlowsController_delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/{tenant}/flows/search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Search live flows */
        get: operations["FlowsController_search"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/{tenant}/flows/validate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Validate a flow without saving it: every problem with its YAML path and line */
        post: operations["FlowsController_validate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/{tenant}/logs/{executionId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The log lines of an execution, oldest first */
        get: operations["LogsController_list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/{tenant}/logs/{executionId}/follow": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Server-sent events: `log` per line (stored ones first), until the execution ended and its last lines arrived */
        get: operations["LogsController_follow"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/{tenant}/namespaces": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Namespaces with their flow counts, worker-selector defaults and variables */
        get: operations["NamespacesController_list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/{tenant}/namespaces/{namespace}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One namespace: its flow count, worker-selector default and variables */
        get: operations["NamespacesController_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/{tenant}/namespaces/{namespace}/files": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Download one namespace file */
        get: operations["NamespaceFilesController_get"];
        /** Store a namespace file (the request body, streamed), replacing the one at that path */
        put: operations["NamespaceFilesController_put"];
        post?: never;
        /** Delete one namespace file */
        delete: operations["NamespaceFilesController_remove"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/{tenant}/namespaces/{namespace}/files/directory": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The namespace's files below a folder (all of them without `path`), with their sizes */
        get: operations["NamespaceFilesController_list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/{tenant}/triggers/{namespace}/{flowId}/{triggerId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Enable or disable a trigger; an enabled schedule restarts from its next date (missed dates do not fire) */
        put: operations["TriggersController_update"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/{tenant}/triggers/{namespace}/{flowId}/{triggerId}/backfill": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Backfill a schedule: fire its dates over a past range, paced, with extra inputs and labels */
        post: operations["TriggersController_createBackfill"];
        /** Delete the backfill of a schedule: the dates it had not reached never fire */
        delete: operations["TriggersController_deleteBackfill"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/{tenant}/triggers/{namespace}/{flowId}/{triggerId}/backfill/pause": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Pause the running backfill of a schedule */
        put: operations["TriggersController_pauseBackfill"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/{tenant}/triggers/{namespace}/{flowId}/{triggerId}/backfill/resume": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Resume a paused backfill from the date it had reached */
        put: operations["TriggersController_resumeBackfill"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/{tenant}/triggers/{namespace}/{flowId}/{triggerId}/unlock": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Drop the lease of a stuck trigger, so any scheduler evaluates it at once */
        post: operations["TriggersController_unlock"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/{tenant}/triggers/search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Triggers of live flows, with their next evaluation date, last execution and lock holder */
        get: operations["TriggersController_search"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/auth/login": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Log in with a username and password: an access JWT, and the refresh token as an HttpOnly cookie */
        post: operations["AuthController_login"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/auth/logout": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** End the login of the refresh-token cookie (every token of it) and clear the cookie */
        post: operations["AuthController_logout"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/auth/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Who the bearer is: user or API token, tenant, role, namespace prefix */
        get: operations["AuthController_me"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/auth/password": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Change the caller's password (the current one is checked); every login of the user ends */
        post: operations["AuthController_changePassword"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/auth/refresh": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** A new access JWT for the refresh-token cookie, which is rotated; a refresh token used twice ends its login */
        post: operations["AuthController_refresh"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/instance/audit-logs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The whole audit log, newest first; ?tenant= for one tenant, ?tenant=instance for instance routes */
        get: operations["InstanceAuditLogsController_search"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/instance/dead-letters": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Messages parked by a consumer that could never handle them, newest first */
        get: operations["DeadLettersController_list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/instance/dead-letters/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One parked message (without its payload) */
        get: operations["DeadLettersController_get"];
        put?: never;
        post?: never;
        /** Drop a parked message for good */
        delete: operations["DeadLettersController_drop"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/instance/dead-letters/{id}/replay": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Publish the message again to its topic, unchanged, and drop it from the dead letters */
        post: operations["DeadLettersController_replay"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/instance/maintenance": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Whether the cluster is in maintenance mode, since when and by whom */
        get: operations["MaintenanceController_current"];
        put?: never;
        /** Enter maintenance mode (idempotent): running tasks finish, workers take no new job, new executions wait in CREATED */
        post: operations["MaintenanceController_enter"];
        /** Leave maintenance mode (idempotent): waiting jobs are dispatched, waiting executions start */
        delete: operations["MaintenanceController_exit"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/instance/services": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The service instances of every role, with their state and last heartbeat */
        get: operations["InstanceServicesController_list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/instance/tenants": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the tenants, disabled ones included */
        get: operations["TenantsController_list"];
        put?: never;
        /** Create a tenant */
        post: operations["TenantsController_create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/instance/tenants/{id}/disable": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Disable a tenant: its routes answer 404 until it is enabled again; its data is kept ('main' cannot be) */
        post: operations["TenantsController_disable"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/instance/tenants/{id}/enable": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Enable a disabled tenant again */
        post: operations["TenantsController_enable"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/instance/users": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the users */
        get: operations["UsersController_list"];
        put?: never;
        /** Create a user with a password */
        post: operations["UsersController_create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/instance/users/{username}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Change a user's password, tenant, role or instance-admin right; a new password ends its logins */
        put: operations["UsersController_update"];
        post?: never;
        /** Delete a user; its logins end and its access tokens are refused at once */
        delete: operations["UsersController_remove"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/instance/worker-groups": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Every worker group with its subscriptions */
        get: operations["WorkerGroupsController_list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/instance/worker-groups/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One worker group with its subscriptions */
        get: operations["WorkerGroupsController_get"];
        /** Create or replace a worker group (idempotent); a subscription change reaches controllers within seconds */
        put: operations["WorkerGroupsController_put"];
        post?: never;
        /** Delete a worker group with its subscriptions and tokens (its workers get no new work); not `default` */
        delete: operations["WorkerGroupsController_delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/instance/worker-groups/{id}/capacity": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The live capacity ledger of each connected worker, per subscription
         * @description From the snapshot each controller writes with its workers' heartbeats: slots, reserved, used, borrowed, lent and waiting. `waiting` is reported when the snapshot carries it, otherwise 0.
         */
        get: operations["WorkerGroupsController_capacity"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/instance/worker-groups/{id}/subscriptions/{queueId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Subscribe the group to a worker queue, or change the subscription; live within seconds */
        put: operations["WorkerGroupsController_putSubscription"];
        post?: never;
        /** Remove a subscription (the queue stays); `default` keeps its `default` subscription */
        delete: operations["WorkerGroupsController_deleteSubscription"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/instance/worker-groups/{id}/tokens": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The group's registration tokens, without their values */
        get: operations["WorkerGroupsController_listTokens"];
        put?: never;
        /** Create a registration token for the group: its value is in this answer only */
        post: operations["WorkerGroupsController_mintToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/instance/worker-groups/{id}/tokens/{tokenId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Revoke a registration token at once: controllers stop sending work to its workers */
        delete: operations["WorkerGroupsController_revokeToken"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/instance/worker-groups/{id}/workers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The group's connected workers (rows their controllers refreshed within the last 15 s) */
        get: operations["WorkerGroupsController_workers"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/instance/worker-queues": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Every worker queue, including the reserved `default` and `system` */
        get: operations["WorkerQueuesController_list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/instance/worker-queues/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One worker queue */
        get: operations["WorkerQueuesController_get"];
        /** Create or replace a worker queue (idempotent); a new queue gets its job topic */
        put: operations["WorkerQueuesController_put"];
        post?: never;
        /** Delete a worker queue no group subscribes to (its topic and the jobs on it stay) */
        delete: operations["WorkerQueuesController_delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
};
export type webhooks = Record<string, never>;
export type components = {
    schemas: {
        Problem: {
            /** @example The flow is not valid */
            detail: string;
            errors?: {
                column?: number;
                /** @description 1-based line in the YAML source, for flow problems */
                line?: number;
                message: string;
                /** @example tasks[2].workerSelector.fallback */
                path: string;
                /**
                 * @description Set on what is accepted but deprecated (flow validation); a problem without it refuses the flow
                 * @enum {string}
                 */
                severity?: "WARNING";
            }[];
            /** @example 422 */
            status: number;
            /** @example Unprocessable Content */
            title: string;
            /** @example urn:lanner:problem:invalid-content */
            type: string;
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
    ApiTokensController_list: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenant: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: date-time */
                        createdAt: string;
                        /** Format: date-time */
                        expiresAt: string | null;
                        /** Format: uuid */
                        id: string;
                        instanceAdmin: boolean;
                        /** Format: date-time */
                        lastUsedAt: string | null;
                        name: string;
                        /** @description The namespace prefix the token is bound to; null: the whole tenant */
                        namespace: string | null;
                        /** Format: date-time */
                        revokedAt: string | null;
                        /** @enum {string} */
                        role: "viewer" | "developer" | "admin";
                    }[];
                };
            };
            /** @description No or bad API token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the permission the route needs (named in the detail) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    ApiTokensController_create: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenant: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * Format: date-time
                     * @description Refused from this instant on
                     */
                    expiresAt?: string;
                    name: string;
                    /** @description Bind the token to this namespace and its children */
                    namespace?: string;
                    /** @enum {string} */
                    role: "viewer" | "developer" | "admin";
                };
            };
        };
        responses: {
            /** @description The token with its value */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: date-time */
                        createdAt: string;
                        /** Format: date-time */
                        expiresAt: string | null;
                        /** Format: uuid */
                        id: string;
                        instanceAdmin: boolean;
                        /** Format: date-time */
                        lastUsedAt: string | null;
                        name: string;
                        /** @description The namespace prefix the token is bound to; null: the whole tenant */
                        namespace: string | null;
                        /** Format: date-time */
                        revokedAt: string | null;
                        /** @enum {string} */
                        role: "viewer" | "developer" | "admin";
                        /** @description The token: shown only in this answer, stored only as its SHA-256 hash */
                        token: string;
                    };
                };
            };
            /** @description Malformed request (each problem with its JSON path) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No or bad API token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the permission the route needs (named in the detail) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (exists, or wrong state) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    ApiTokensController_revoke: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                tenant: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Revoked (revoking again changes nothing) */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description No or bad API token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the permission the route needs (named in the detail) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    AuditLogsController_search: {
        parameters: {
            query?: {
                /** @description e.g. flow.update, execution.kill */
                action?: string;
                /** @description An API token's id or name, a user's id or username */
                actor?: string;
                /** @description The request's X-Correlation-Id */
                correlationId?: string;
                /** @description ISO-8601 date-time: at or after */
                from?: string;
                /** @description This namespace and its children */
                namespace?: string;
                outcome?: "success" | "failure" | "denied";
                /** @description 1-based */
                page?: number;
                /** @description e.g. company.team/hello, an execution id */
                resourceId?: string;
                /** @description e.g. flow, execution, api-token */
                resourceType?: string;
                /** @description At most 200, default 25 */
                size?: number;
                /** @description ISO-8601 date-time: before */
                to?: string;
            };
            header?: never;
            path: {
                tenant: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description { results, total } */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        results: {
                            /** @example flow.update */
                            action: string;
                            actor: {
                                /** @description The API token's id or the user's id */
                                id: string | null;
                                /** @description The API token's name or the username */
                                name: string | null;
                                /** @enum {string} */
                                type: "api-token" | "user" | "anonymous";
                            };
                            clientIp: string | null;
                            correlationId: string | null;
                            /** Format: uuid */
                            id: string;
                            namespace: string | null;
                            /** Format: date-time */
                            occurredAt: string;
                            /** @enum {string} */
                            outcome: "success" | "failure" | "denied";
                            /** @example company.team/hello */
                            resourceId: string | null;
                            /** @example flow */
                            resourceType: string;
                            /** @description The HTTP status answered */
                            status: number;
                            /** @description null on instance routes */
                            tenant: string | null;
                            userAgent: string | null;
                        }[];
                        /** @description Matches in every page */
                        total: number;
                    };
                };
            };
            /** @description Malformed request (each problem with its JSON path) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /**
             * @description No or bad API token
             *
             *     No or bad API token
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the permission the route needs (named in the detail) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    ExecutionsController_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                tenant: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The execution, with taskRunList and outputs */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: date-time */
                        createdAt: string;
                        /** @description In a state it never leaves by itself */
                        ended: boolean;
                        /** @description Why the execution itself failed (a quarantine, a concurrency limit) */
                        error: {
                            message: string;
                        } | null;
                        flowId: string;
                        flowRevision: number;
                        id: string;
                        /** @description The values of the flow inputs, by input id */
                        inputs: Record<string, never>;
                        labels: {
                            [key: string]: string;
                        };
                        namespace: string;
                        /** @description The first execution of a retry chain; its own id otherwise */
                        originalId: string;
                        outputs: Record<string, never>;
                        parentExecutionId: string | null;
                        parentTaskRunId: string | null;
                        /** @description A replay: the execution it was made from */
                        replayOf: {
                            executionId: string;
                            /** @description The task run it ran again from; null: the whole flow */
                            taskRunId: string | null;
                        } | null;
                        state: {
                            /** @enum {string} */
                            current: "CREATED" | "QUEUED" | "RUNNING" | "PAUSED" | "RESTARTED" | "KILLING" | "RETRYING" | "RETRIED" | "SUCCESS" | "WARNING" | "FAILED" | "KILLED" | "CANCELLED";
                            /** Format: date-time */
                            endDate: string | null;
                            /** @description Every state it went through, oldest first */
                            histories: {
                                /** Format: date-time */
                                date: string;
                                /** @enum {string} */
                                state: "CREATED" | "QUEUED" | "RUNNING" | "PAUSED" | "RESTARTED" | "KILLING" | "RETRYING" | "RETRIED" | "SUCCESS" | "WARNING" | "FAILED" | "KILLED" | "CANCELLED";
                            }[];
                            /** Format: date-time */
                            startDate: string | null;
                        };
                        /** @description Its task runs with their attempts */
                        taskRunList: {
                            attempts: {
                                attempt: number;
                                /** @description What the user is shown about its failure: `{ message }` */
                                error: Record<string, never> | null;
                                /** @description What the attempt produced */
                                outputs: Record<string, never>;
                                state: {
                                    /** @enum {string} */
                                    current: "CREATED" | "QUEUED" | "RUNNING" | "PAUSED" | "RESTARTED" | "KILLING" | "RETRYING" | "RETRIED" | "SUCCESS" | "WARNING" | "FAILED" | "KILLED" | "CANCELLED" | "SUBMITTED" | "RESUBMITTED" | "SKIPPED";
                                    /** Format: date-time */
                                    endDate: string | null;
                                    /** Format: date-time */
                                    startDate: string | null;
                                };
                                workerId: string | null;
                                workerQueueId: string | null;
                            }[];
                            /** @description Why it waits or went where it went */
                            dispatchReason: string | null;
                            /** @description Why it failed (or ended in WARNING) */
                            error: {
                                message: string;
                            } | null;
                            executionId: string;
                            id: string;
                            outputs: Record<string, never>;
                            parentTaskRunId: string | null;
                            state: {
                                /** @enum {string} */
                                current: "CREATED" | "QUEUED" | "RUNNING" | "PAUSED" | "RESTARTED" | "KILLING" | "RETRYING" | "RETRIED" | "SUCCESS" | "WARNING" | "FAILED" | "KILLED" | "CANCELLED" | "SUBMITTED" | "RESUBMITTED" | "SKIPPED";
                                /** Format: date-time */
                                endDate: string | null;
                                /** @description Every state it went through, oldest first */
                                histories: {
                                    /** Format: date-time */
                                    date: string;
                                    /** @enum {string} */
                                    state: "CREATED" | "QUEUED" | "RUNNING" | "PAUSED" | "RESTARTED" | "KILLING" | "RETRYING" | "RETRIED" | "SUCCESS" | "WARNING" | "FAILED" | "KILLED" | "CANCELLED" | "SUBMITTED" | "RESUBMITTED" | "SKIPPED";
                                }[];
                                /** Format: date-time */
                                startDate: string | null;
                            };
                            taskId: string;
                            /** @description The ForEach value this run iterates on */
                            value: string | null;
                            workerQueueId: string | null;
                        }[];
                        tenantId: string;
                        /** Format: date-time */
                        updatedAt: string;
                        version: number;
                    };
                };
            };
            /** @description No or bad API token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    ExecutionsController_file: {
        parameters: {
            query: {
                /** @description The kestra:/// URI, as the execution shows it */
                path: string;
            };
            header?: never;
            path: {
                id: string;
                tenant: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The file's bytes */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/octet-stream": string;
                };
            };
            /** @description Malformed request (each problem with its JSON path) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No or bad API token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    ExecutionsController_preview: {
        parameters: {
            query: {
                /** @description The kestra:/// URI, as the execution shows it */
                path: string;
            };
            header?: never;
            path: {
                id: string;
                tenant: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Up to 64 KiB of the file as text */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        content: string;
                        /** @description The file goes on past `content` */
                        truncated: boolean;
                        /**
                         * @description How to show it, from the file name
                         * @enum {string}
                         */
                        type: "text" | "csv" | "json";
                    };
                };
            };
            /** @description Malformed request (each problem with its JSON path) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No or bad API token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid content (each problem with its path, and its line for YAML) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    ExecutionsController_purgeFiles: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                tenant: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The kestra:/// URIs of the files deleted */
                        uris: string[];
                    };
                };
            };
            /** @description Malformed request (each problem with its JSON path) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No or bad API token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (exists, or wrong state) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    ExecutionsController_follow: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                tenant: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description `execution` events, the execution after each change, then `end` */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                };
            };
            /** @description No or bad API token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    ExecutionsController_kill: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                tenant: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Kill requested */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description No or bad API token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (exists, or wrong state) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    ExecutionsController_replay: {
        parameters: {
            query?: {
                /** @description The task run of the execution to run again from */
                taskRunId?: string;
            };
            header?: never;
            path: {
                id: string;
                tenant: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The new execution, in CREATED */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: date-time */
                        createdAt: string;
                        /** @description In a state it never leaves by itself */
                        ended: boolean;
                        /** @description Why the execution itself failed (a quarantine, a concurrency limit) */
                        error: {
                            message: string;
                        } | null;
                        flowId: string;
                        flowRevision: number;
                        id: string;
                        /** @description The values of the flow inputs, by input id */
                        inputs: Record<string, never>;
                        labels: {
                            [key: string]: string;
                        };
                        namespace: string;
                        /** @description The first execution of a retry chain; its own id otherwise */
                        originalId: string;
                        outputs: Record<string, never>;
                        parentExecutionId: string | null;
                        parentTaskRunId: string | null;
                        /** @description A replay: the execution it was made from */
                        replayOf: {
                            executionId: string;
                            /** @description The task run it ran again from; null: the whole flow */
                            taskRunId: string | null;
                        } | null;
                        state: {
                            /** @enum {string} */
                            current: "CREATED" | "QUEUED" | "RUNNING" | "PAUSED" | "RESTARTED" | "KILLING" | "RETRYING" | "RETRIED" | "SUCCESS" | "WARNING" | "FAILED" | "KILLED" | "CANCELLED";
                            /** Format: date-time */
                            endDate: string | null;
                            /** @description Every state it went through, oldest first */
                            histories: {
                                /** Format: date-time */
                                date: string;
                                /** @enum {string} */
                                state: "CREATED" | "QUEUED" | "RUNNING" | "PAUSED" | "RESTARTED" | "KILLING" | "RETRYING" | "RETRIED" | "SUCCESS" | "WARNING" | "FAILED" | "KILLED" | "CANCELLED";
                            }[];
                            /** Format: date-time */
                            startDate: string | null;
                        };
                        /** @description Its task runs with their attempts */
                        taskRunList: {
                            attempts: {
                                attempt: number;
                                /** @description What the user is shown about its failure: `{ message }` */
                                error: Record<string, never> | null;
                                /** @description What the attempt produced */
                                outputs: Record<string, never>;
                                state: {
                                    /** @enum {string} */
                                    current: "CREATED" | "QUEUED" | "RUNNING" | "PAUSED" | "RESTARTED" | "KILLING" | "RETRYING" | "RETRIED" | "SUCCESS" | "WARNING" | "FAILED" | "KILLED" | "CANCELLED" | "SUBMITTED" | "RESUBMITTED" | "SKIPPED";
                                    /** Format: date-time */
                                    endDate: string | null;
                                    /** Format: date-time */
                                    startDate: string | null;
                                };
                                workerId: string | null;
                                workerQueueId: string | null;
                            }[];
                            /** @description Why it waits or went where it went */
                            dispatchReason: string | null;
                            /** @description Why it failed (or ended in WARNING) */
                            error: {
                                message: string;
                            } | null;
                            executionId: string;
                            id: string;
                            outputs: Record<string, never>;
                            parentTaskRunId: string | null;
                            state: {
                                /** @enum {string} */
                                current: "CREATED" | "QUEUED" | "RUNNING" | "PAUSED" | "RESTARTED" | "KILLING" | "RETRYING" | "RETRIED" | "SUCCESS" | "WARNING" | "FAILED" | "KILLED" | "CANCELLED" | "SUBMITTED" | "RESUBMITTED" | "SKIPPED";
                                /** Format: date-time */
                                endDate: string | null;
                                /** @description Every state it went through, oldest first */
                                histories: {
                                    /** Format: date-time */
                                    date: string;
                                    /** @enum {string} */
                                    state: "CREATED" | "QUEUED" | "RUNNING" | "PAUSED" | "RESTARTED" | "KILLING" | "RETRYING" | "RETRIED" | "SUCCESS" | "WARNING" | "FAILED" | "KILLED" | "CANCELLED" | "SUBMITTED" | "RESUBMITTED" | "SKIPPED";
                                }[];
                                /** Format: date-time */
                                startDate: string | null;
                            };
                            taskId: string;
                            /** @description The ForEach value this run iterates on */
                            value: string | null;
                            workerQueueId: string | null;
                        }[];
                        tenantId: string;
                        /** Format: date-time */
                        updatedAt: string;
                        version: number;
                    };
                };
            };
            /** @description Malformed request (each problem with its JSON path) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No or bad API token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (exists, or wrong state) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    ExecutionsController_restart: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                tenant: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The execution as it was when the restart was requested */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: date-time */
                        createdAt: string;
                        /** @description In a state it never leaves by itself */
                        ended: boolean;
                        /** @description Why the execution itself failed (a quarantine, a concurrency limit) */
                        error: {
                            message: string;
                        } | null;
                        flowId: string;
                        flowRevision: number;
                        id: string;
                        /** @description The values of the flow inputs, by input id */
                        inputs: Record<string, never>;
                        labels: {
                            [key: string]: string;
                        };
                        namespace: string;
                        /** @description The first execution of a retry chain; its own id otherwise */
                        originalId: string;
                        outputs: Record<string, never>;
                        parentExecutionId: string | null;
                        parentTaskRunId: string | null;
                        /** @description A replay: the execution it was made from */
                        replayOf: {
                            executionId: string;
                            /** @description The task run it ran again from; null: the whole flow */
                            taskRunId: string | null;
                        } | null;
                        state: {
                            /** @enum {string} */
                            current: "CREATED" | "QUEUED" | "RUNNING" | "PAUSED" | "RESTARTED" | "KILLING" | "RETRYING" | "RETRIED" | "SUCCESS" | "WARNING" | "FAILED" | "KILLED" | "CANCELLED";
                            /** Format: date-time */
                            endDate: string | null;
                            /** @description Every state it went through, oldest first */
                            histories: {
                                /** Format: date-time */
                                date: string;
                                /** @enum {string} */
                                state: "CREATED" | "QUEUED" | "RUNNING" | "PAUSED" | "RESTARTED" | "KILLING" | "RETRYING" | "RETRIED" | "SUCCESS" | "WARNING" | "FAILED" | "KILLED" | "CANCELLED";
                            }[];
                            /** Format: date-time */
                            startDate: string | null;
                        };
                        /** @description Its task runs with their attempts */
                        taskRunList: {
                            attempts: {
                                attempt: number;
                                /** @description What the user is shown about its failure: `{ message }` */
                                error: Record<string, never> | null;
                                /** @description What the attempt produced */
                                outputs: Record<string, never>;
                                state: {
                                    /** @enum {string} */
                                    current: "CREATED" | "QUEUED" | "RUNNING" | "PAUSED" | "RESTARTED" | "KILLING" | "RETRYING" | "RETRIED" | "SUCCESS" | "WARNING" | "FAILED" | "KILLED" | "CANCELLED" | "SUBMITTED" | "RESUBMITTED" | "SKIPPED";
                                    /** Format: date-time */
                                    endDate: string | null;
                                    /** Format: date-time */
                                    startDate: string | null;
                                };
                                workerId: string | null;
                                workerQueueId: string | null;
                            }[];
                            /** @description Why it waits or went where it went */
                            dispatchReason: string | null;
                            /** @description Why it failed (or ended in WARNING) */
                            error: {
                                message: string;
                            } | null;
                            executionId: string;
                            id: string;
                            outputs: Record<string, never>;
                            parentTaskRunId: string | null;
                            state: {
                                /** @enum {string} */
                                current: "CREATED" | "QUEUED" | "RUNNING" | "PAUSED" | "RESTARTED" | "KILLING" | "RETRYING" | "RETRIED" | "SUCCESS" | "WARNING" | "FAILED" | "KILLED" | "CANCELLED" | "SUBMITTED" | "RESUBMITTED" | "SKIPPED";
                                /** Format: date-time */
                                endDate: string | null;
                                /** @description Every state it went through, oldest first */
                                histories: {
                                    /** Format: date-time */
                                    date: string;
                                    /** @enum {string} */
                                    state: "CREATED" | "QUEUED" | "RUNNING" | "PAUSED" | "RESTARTED" | "KILLING" | "RETRYING" | "RETRIED" | "SUCCESS" | "WARNING" | "FAILED" | "KILLED" | "CANCELLED" | "SUBMITTED" | "RESUBMITTED" | "SKIPPED";
                                }[];
                                /** Format: date-time */
                                startDate: string | null;
                            };
                            taskId: string;
                            /** @description The ForEach value this run iterates on */
                            value: string | null;
                            workerQueueId: string | null;
                        }[];
                        tenantId: string;
                        /** Format: date-time */
                        updatedAt: string;
                        version: number;
                    };
                };
            };
            /** @description No or bad API token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (exists, or wrong state) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    ExecutionsController_resume: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                tenant: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    inputs?: {
                        [key: string]: unknown;
                    };
                };
            };
        };
        responses: {
            /** @description Resume requested */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Malformed request (each problem with its JSON path) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No or bad API token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (exists, or wrong state) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    ExecutionsController_create: {
        parameters: {
            query?: {
                /** @description key:value, repeatable */
                labels?: string | string[];
                /** @description true: answer when the execution ends */
                wait?: "true" | "false";
                /** @description ISO-8601 duration, default PT60S */
                waitTimeout?: string;
            };
            header?: never;
            path: {
                flowId: string;
                namespace: string;
                tenant: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** @description Values of the flow inputs, by input id */
                    inputs?: {
                        [key: string]: unknown;
                    };
                    labels?: {
                        [key: string]: string;
                    };
                };
                "multipart/form-data": {
                    /** @description Values of the flow inputs, by input id */
                    inputs?: {
                        [key: string]: unknown;
                    };
                    labels?: {
                        [key: string]: string;
                    };
                };
            };
        };
        responses: {
            /** @description The execution (CREATED, or ended with ?wait=true) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: date-time */
                        createdAt: string;
                        /** @description In a state it never leaves by itself */
                        ended: boolean;
                        /** @description Why the execution itself failed (a quarantine, a concurrency limit) */
                        error: {
                            message: string;
                        } | null;
                        flowId: string;
                        flowRevision: number;
                        id: string;
                        /** @description The values of the flow inputs, by input id */
                        inputs: Record<string, never>;
                        labels: {
                            [key: string]: string;
                        };
                        namespace: string;
                        /** @description The first execution of a retry chain; its own id otherwise */
                        originalId: string;
                        outputs: Record<string, never>;
                        parentExecutionId: string | null;
                        parentTaskRunId: string | null;
                        /** @description A replay: the execution it was made from */
                        replayOf: {
                            executionId: string;
                            /** @description The task run it ran again from; null: the whole flow */
                            taskRunId: string | null;
                        } | null;
                        state: {
                            /** @enum {string} */
                            current: "CREATED" | "QUEUED" | "RUNNING" | "PAUSED" | "RESTARTED" | "KILLING" | "RETRYING" | "RETRIED" | "SUCCESS" | "WARNING" | "FAILED" | "KILLED" | "CANCELLED";
                            /** Format: date-time */
                            endDate: string | null;
                            /** @description Every state it went through, oldest first */
                            histories: {
                                /** Format: date-time */
                                date: string;
                                /** @enum {string} */
                                state: "CREATED" | "QUEUED" | "RUNNING" | "PAUSED" | "RESTARTED" | "KILLING" | "RETRYING" | "RETRIED" | "SUCCESS" | "WARNING" | "FAILED" | "KILLED" | "CANCELLED";
                            }[];
                            /** Format: date-time */
                            startDate: string | null;
                        };
                        /** @description Its task runs with their attempts */
                        taskRunList: {
                            attempts: {
                                attempt: number;
                                /** @description What the user is shown about its failure: `{ message }` */
                                error: Record<string, never> | null;
                                /** @description What the attempt produced */
                                outputs: Record<string, never>;
                                state: {
                                    /** @enum {string} */
                                    current: "CREATED" | "QUEUED" | "RUNNING" | "PAUSED" | "RESTARTED" | "KILLING" | "RETRYING" | "RETRIED" | "SUCCESS" | "WARNING" | "FAILED" | "KILLED" | "CANCELLED" | "SUBMITTED" | "RESUBMITTED" | "SKIPPED";
                                    /** Format: date-time */
                                    endDate: string | null;
                                    /** Format: date-time */
                                    startDate: string | null;
                                };
                                workerId: string | null;
                                workerQueueId: string | null;
                            }[];
                            /** @description Why it waits or went where it went */
                            dispatchReason: string | null;
                            /** @description Why it failed (or ended in WARNING) */
                            error: {
                                message: string;
                            } | null;
                            executionId: string;
                            id: string;
                            outputs: Record<string, never>;
                            parentTaskRunId: string | null;
                            state: {
                                /** @enum {string} */
                                current: "CREATED" | "QUEUED" | "RUNNING" | "PAUSED" | "RESTARTED" | "KILLING" | "RETRYING" | "RETRIED" | "SUCCESS" | "WARNING" | "FAILED" | "KILLED" | "CANCELLED" | "SUBMITTED" | "RESUBMITTED" | "SKIPPED";
                                /** Format: date-time */
                                endDate: string | null;
                                /** @description Every state it went through, oldest first */
                                histories: {
                                    /** Format: date-time */
                                    date: string;
                                    /** @enum {string} */
                                    state: "CREATED" | "QUEUED" | "RUNNING" | "PAUSED" | "RESTARTED" | "KILLING" | "RETRYING" | "RETRIED" | "SUCCESS" | "WARNING" | "FAILED" | "KILLED" | "CANCELLED" | "SUBMITTED" | "RESUBMITTED" | "SKIPPED";
                                }[];
                                /** Format: date-time */
                                startDate: string | null;
                            };
                            taskId: string;
                            /** @description The ForEach value this run iterates on */
                            value: string | null;
                            workerQueueId: string | null;
                        }[];
                        tenantId: string;
                        /** Format: date-time */
                        updatedAt: string;
                        version: number;
                    };
                };
            };
            /** @description Malformed request (each problem with its JSON path) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No or bad API token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (exists, or wrong state) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid content (each problem with its path, and its line for YAML) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    ExecutionsController_search: {
        parameters: {
            query?: {
                flowId?: string;
                /** @description ISO-8601 date-time: created at or after */
                from?: string;
                /** @description key:value, repeatable: executions with every label */
                labels?: string | string[];
                namespace?: string;
                /** @description 1-based */
                page?: number;
                /** @description At most 200, default 25 */
                size?: number;
                state?: "CREATED" | "QUEUED" | "RUNNING" | "PAUSED" | "RESTARTED" | "KILLING" | "RETRYING" | "RETRIED" | "SUCCESS" | "WARNING" | "FAILED" | "KILLED" | "CANCELLED";
                /** @description ISO-8601 date-time: created before */
                to?: string;
            };
            header?: never;
            path: {
                tenant: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of executions, without their task runs */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        results: {
                            /** Format: date-time */
                            createdAt: string;
                            /** @description In a state it never leaves by itself */
                            ended: boolean;
                            /** @description Why the execution itself failed (a quarantine, a concurrency limit) */
                            error: {
                                message: string;
                            } | null;
                            flowId: string;
                            flowRevision: number;
                            id: string;
                            /** @description The values of the flow inputs, by input id */
                            inputs: Record<string, never>;
                            labels: {
                                [key: string]: string;
                            };
                            namespace: string;
                            /** @description The first execution of a retry chain; its own id otherwise */
                            originalId: string;
                            outputs: Record<string, never>;
                            parentExecutionId: string | null;
                            parentTaskRunId: string | null;
                            /** @description A replay: the execution it was made from */
                            replayOf: {
                                executionId: string;
                                /** @description The task run it ran again from; null: the whole flow */
                                taskRunId: string | null;
                            } | null;
                            state: {
                                /** @enum {string} */
                                current: "CREATED" | "QUEUED" | "RUNNING" | "PAUSED" | "RESTARTED" | "KILLING" | "RETRYING" | "RETRIED" | "SUCCESS" | "WARNING" | "FAILED" | "KILLED" | "CANCELLED";
                                /** Format: date-time */
                                endDate: string | null;
                                /** @description Every state it went through, oldest first */
                                histories: {
                                    /** Format: date-time */
                                    date: string;
                                    /** @enum {string} */
                                    state: "CREATED" | "QUEUED" | "RUNNING" | "PAUSED" | "RESTARTED" | "KILLING" | "RETRYING" | "RETRIED" | "SUCCESS" | "WARNING" | "FAILED" | "KILLED" | "CANCELLED";
                                }[];
                                /** Format: date-time */
                                startDate: string | null;
                            };
                            tenantId: string;
                            /** Format: date-time */
                            updatedAt: string;
                            version: number;
                        }[];
                        /** @description Matches in every page */
                        total: number;
                    };
                };
            };
            /** @description Malformed request (each problem with its JSON path) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No or bad API token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    ExecutionsController_stats: {
        parameters: {
            query?: {
                /** @description ISO-8601 date-time; default: a day before `to` */
                from?: string;
                /** @description this namespace and the ones under it */
                namespace?: string;
                /** @description ISO-8601 date-time; default: now */
                to?: string;
            };
            header?: never;
            path: {
                tenant: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The aggregates of the period */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Width of a timeline bucket */
                        bucketSeconds: number;
                        /** @description Over the ended executions (end minus start); null when none ended */
                        durations: {
                            /** @description milliseconds */
                            p50Ms: number;
                            /** @description milliseconds */
                            p95Ms: number;
                        } | null;
                        /** @description Of those, the ones in a terminal state */
                        ended: number;
                        failed: number;
                        /** @description Most FAILED first */
                        failingFlows: {
                            executions: number;
                            failed: number;
                            flowId: string;
                            /** Format: date-time */
                            lastFailedAt: string;
                            namespace: string;
                        }[];
                        /** Format: date-time */
                        from: string;
                        /** @description Highest p95 first */
                        slowestFlows: {
                            /** @description Ended executions of the flow in the period */
                            executions: number;
                            flowId: string;
                            /** @description milliseconds */
                            maxMs: number;
                            namespace: string;
                            /** @description milliseconds */
                            p50Ms: number;
                            /** @description milliseconds */
                            p95Ms: number;
                        }[];
                        succeeded: number;
                        /** @description succeeded / ended; null when none ended */
                        successRate: number | null;
                        /** @description Every bucket of the period, oldest first */
                        timeline: {
                            /** @description Executions created in the bucket, per state they are in now */
                            counts: {
                                CANCELLED?: number;
                                CREATED?: number;
                                FAILED?: number;
                                KILLED?: number;
                                KILLING?: number;
                                PAUSED?: number;
                                QUEUED?: number;
                                RESTARTED?: number;
                                RETRIED?: number;
                                RETRYING?: number;
                                RUNNING?: number;
                                SUCCESS?: number;
                                WARNING?: number;
                            };
                            /** Format: date-time */
                            start: string;
                        }[];
                        /** Format: date-time */
                        to: string;
                        /** @description Executions created in the period */
                        total: number;
                    };
                };
            };
            /** @description Malformed request (each problem with its JSON path) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No or bad API token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    WebhooksController_get: {
        parameters: {
            query?: {
                /** @description true: answer when the execution ends (up to 60 s) */
                wait?: unknown;
            };
            header?: never;
            path: {
                flowId: string;
                key: string;
                namespace: string;
                tenant: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The execution (CREATED, or ended with ?wait=true) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: date-time */
                        createdAt: string;
                        /** @description In a state it never leaves by itself */
                        ended: boolean;
                        /** @description Why the execution itself failed (a quarantine, a concurrency limit) */
                        error: {
                            message: string;
                        } | null;
                        flowId: string;
                        flowRevision: number;
                        id: string;
                        /** @description The values of the flow inputs, by input id */
                        inputs: Record<string, never>;
                        labels: {
                            [key: string]: string;
                        };
                        namespace: string;
                        /** @description The first execution of a retry chain; its own id otherwise */
                        originalId: string;
                        outputs: Record<string, never>;
                        parentExecutionId: string | null;
                        parentTaskRunId: string | null;
                        /** @description A replay: the execution it was made from */
                        replayOf: {
                            executionId: string;
                            /** @description The task run it ran again from; null: the whole flow */
                            taskRunId: string | null;
                        } | null;
                        state: {
                            /** @enum {string} */
                            current: "CREATED" | "QUEUED" | "RUNNING" | "PAUSED" | "RESTARTED" | "KILLING" | "RETRYING" | "RETRIED" | "SUCCESS" | "WARNING" | "FAILED" | "KILLED" | "CANCELLED";
                            /** Format: date-time */
                            endDate: string | null;
                            /** @description Every state it went through, oldest first */
                            histories: {
                                /** Format: date-time */
                                date: string;
                                /** @enum {string} */
                                state: "CREATED" | "QUEUED" | "RUNNING" | "PAUSED" | "RESTARTED" | "KILLING" | "RETRYING" | "RETRIED" | "SUCCESS" | "WARNING" | "FAILED" | "KILLED" | "CANCELLED";
                            }[];
                            /** Format: date-time */
                            startDate: string | null;
                        };
                        /** @description Its task runs with their attempts */
                        taskRunList: {
                            attempts: {
                                attempt: number;
                                /** @description What the user is shown about its failure: `{ message }` */
                                error: Record<string, never> | null;
                                /** @description What the attempt produced */
                                outputs: Record<string, never>;
                                state: {
                                    /** @enum {string} */
                                    current: "CREATED" | "QUEUED" | "RUNNING" | "PAUSED" | "RESTARTED" | "KILLING" | "RETRYING" | "RETRIED" | "SUCCESS" | "WARNING" | "FAILED" | "KILLED" | "CANCELLED" | "SUBMITTED" | "RESUBMITTED" | "SKIPPED";
                                    /** Format: date-time */
                                    endDate: string | null;
                                    /** Format: date-time */
                                    startDate: string | null;
                                };
                                workerId: string | null;
                                workerQueueId: string | null;
                            }[];
                            /** @description Why it waits or went where it went */
                            dispatchReason: string | null;
                            /** @description Why it failed (or ended in WARNING) */
                            error: {
                                message: string;
                            } | null;
                            executionId: string;
                            id: string;
                            outputs: Record<string, never>;
                            parentTaskRunId: string | null;
                            state: {
                                /** @enum {string} */
                                current: "CREATED" | "QUEUED" | "RUNNING" | "PAUSED" | "RESTARTED" | "KILLING" | "RETRYING" | "RETRIED" | "SUCCESS" | "WARNING" | "FAILED" | "KILLED" | "CANCELLED" | "SUBMITTED" | "RESUBMITTED" | "SKIPPED";
                                /** Format: date-time */
                                endDate: string | null;
                                /** @description Every state it went through, oldest first */
                                histories: {
                                    /** Format: date-time */
                                    date: string;
                                    /** @enum {string} */
                                    state: "CREATED" | "QUEUED" | "RUNNING" | "PAUSED" | "RESTARTED" | "KILLING" | "RETRYING" | "RETRIED" | "SUCCESS" | "WARNING" | "FAILED" | "KILLED" | "CANCELLED" | "SUBMITTED" | "RESUBMITTED" | "SKIPPED";
                                }[];
                                /** Format: date-time */
                                startDate: string | null;
                            };
                            taskId: string;
                            /** @description The ForEach value this run iterates on */
                            value: string | null;
                            workerQueueId: string | null;
                        }[];
                        tenantId: string;
                        /** Format: date-time */
                        updatedAt: string;
                        version: number;
                    };
                };
            };
            /** @description No or bad API token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (exists, or wrong state) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    WebhooksController_put: {
        parameters: {
            query?: {
                /** @description true: answer when the execution ends (up to 60 s) */
                wait?: unknown;
            };
            header?: never;
            path: {
                flowId: string;
                key: string;
                namespace: string;
                tenant: string;
            };
            cookie?: never;
        };
        /** @description Any JSON (parsed) or text (kept as a string): trigger.body */
        requestBody?: {
            content: {
                "application/json": unknown;
                "text/plain": unknown;
            };
        };
        responses: {
            /** @description The execution (CREATED, or ended with ?wait=true) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: date-time */
                        createdAt: string;
                        /** @description In a state it never leaves by itself */
                        ended: boolean;
                        /** @description Why the execution itself failed (a quarantine, a concurrency limit) */
                        error: {
                            message: string;
                        } | null;
                        flowId: string;
                        flowRevision: number;
                        id: string;
                        /** @description The values of the flow inputs, by input id */
                        inputs: Record<string, never>;
                        labels: {
                            [key: string]: string;
                        };
                        namespace: string;
                        /** @description The first execution of a retry chain; its own id otherwise */
                        originalId: string;
                        outputs: Record<string, never>;
                        parentExecutionId: string | null;
                        parentTaskRunId: string | null;
                        /** @description A replay: the execution it was made from */
                        replayOf: {
                            executionId: string;
                            /** @description The task run it ran again from; null: the whole flow */
                            taskRunId: string | null;
                        } | null;
                        state: {
                            /** @enum {string} */
                            current: "CREATED" | "QUEUED" | "RUNNING" | "PAUSED" | "RESTARTED" | "KILLING" | "RETRYING" | "RETRIED" | "SUCCESS" | "WARNING" | "FAILED" | "KILLED" | "CANCELLED";
                            /** Format: date-time */
                            endDate: string | null;
                            /** @description Every state it went through, oldest first */
                            histories: {
                                /** Format: date-time */
                                date: string;
                                /** @enum {string} */
                                state: "CREATED" | "QUEUED" | "RUNNING" | "PAUSED" | "RESTARTED" | "KILLING" | "RETRYING" | "RETRIED" | "SUCCESS" | "WARNING" | "FAILED" | "KILLED" | "CANCELLED";
                            }[];
                            /** Format: date-time */
                            startDate: string | null;
                        };
                        /** @description Its task runs with their attempts */
                        taskRunList: {
                            attempts: {
                                attempt: number;
                                /** @description What the user is shown about its failure: `{ message }` */
                                error: Record<string, never> | null;
                                /** @description What the attempt produced */
                                outputs: Record<string, never>;
                                state: {
                                    /** @enum {string} */
                                    current: "CREATED" | "QUEUED" | "RUNNING" | "PAUSED" | "RESTARTED" | "KILLING" | "RETRYING" | "RETRIED" | "SUCCESS" | "WARNING" | "FAILED" | "KILLED" | "CANCELLED" | "SUBMITTED" | "RESUBMITTED" | "SKIPPED";
                                    /** Format: date-time */
                                    endDate: string | null;
                                    /** Format: date-time */
                                    startDate: string | null;
                                };
                                workerId: string | null;
                                workerQueueId: string | null;
                            }[];
                            /** @description Why it waits or went where it went */
                            dispatchReason: string | null;
                            /** @description Why it failed (or ended in WARNING) */
                            error: {
                                message: string;
                            } | null;
                            executionId: string;
                            id: string;
                            outputs: Record<string, never>;
                            parentTaskRunId: string | null;
                            state: {
                                /** @enum {string} */
                                current: "CREATED" | "QUEUED" | "RUNNING" | "PAUSED" | "RESTARTED" | "KILLING" | "RETRYING" | "RETRIED" | "SUCCESS" | "WARNING" | "FAILED" | "KILLED" | "CANCELLED" | "SUBMITTED" | "RESUBMITTED" | "SKIPPED";
                                /** Format: date-time */
                                endDate: string | null;
                                /** @description Every state it went through, oldest first */
                                histories: {
                                    /** Format: date-time */
                                    date: string;
                                    /** @enum {string} */
                                    state: "CREATED" | "QUEUED" | "RUNNING" | "PAUSED" | "RESTARTED" | "KILLING" | "RETRYING" | "RETRIED" | "SUCCESS" | "WARNING" | "FAILED" | "KILLED" | "CANCELLED" | "SUBMITTED" | "RESUBMITTED" | "SKIPPED";
                                }[];
                                /** Format: date-time */
                                startDate: string | null;
                            };
                            taskId: string;
                            /** @description The ForEach value this run iterates on */
                            value: string | null;
                            workerQueueId: string | null;
                        }[];
                        tenantId: string;
                        /** Format: date-time */
                        updatedAt: string;
                        version: number;
                    };
                };
            };
            /** @description No or bad API token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (exists, or wrong state) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    WebhooksController_post: {
        parameters: {
            query?: {
                /** @description true: answer when the execution ends (up to 60 s) */
                wait?: unknown;
            };
            header?: never;
            path: {
                flowId: string;
                key: string;
                namespace: string;
                tenant: string;
            };
            cookie?: never;
        };
        /** @description Any JSON (parsed) or text (kept as a string): trigger.body */
        requestBody?: {
            content: {
                "application/json": unknown;
                "text/plain": unknown;
            };
        };
        responses: {
            /** @description The execution (CREATED, or ended with ?wait=true) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: date-time */
                        createdAt: string;
                        /** @description In a state it never leaves by itself */
                        ended: boolean;
                        /** @description Why the execution itself failed (a quarantine, a concurrency limit) */
                        error: {
                            message: string;
                        } | null;
                        flowId: string;
                        flowRevision: number;
                        id: string;
                        /** @description The values of the flow inputs, by input id */
                        inputs: Record<string, never>;
                        labels: {
                            [key: string]: string;
                        };
                        namespace: string;
                        /** @description The first execution of a retry chain; its own id otherwise */
                        originalId: string;
                        outputs: Record<string, never>;
                        parentExecutionId: string | null;
                        parentTaskRunId: string | null;
                        /** @description A replay: the execution it was made from */
                        replayOf: {
                            executionId: string;
                            /** @description The task run it ran again from; null: the whole flow */
                            taskRunId: string | null;
                        } | null;
                        state: {
                            /** @enum {string} */
                            current: "CREATED" | "QUEUED" | "RUNNING" | "PAUSED" | "RESTARTED" | "KILLING" | "RETRYING" | "RETRIED" | "SUCCESS" | "WARNING" | "FAILED" | "KILLED" | "CANCELLED";
                            /** Format: date-time */
                            endDate: string | null;
                            /** @description Every state it went through, oldest first */
                            histories: {
                                /** Format: date-time */
                                date: string;
                                /** @enum {string} */
                                state: "CREATED" | "QUEUED" | "RUNNING" | "PAUSED" | "RESTARTED" | "KILLING" | "RETRYING" | "RETRIED" | "SUCCESS" | "WARNING" | "FAILED" | "KILLED" | "CANCELLED";
                            }[];
                            /** Format: date-time */
                            startDate: string | null;
                        };
                        /** @description Its task runs with their attempts */
                        taskRunList: {
                            attempts: {
                                attempt: number;
                                /** @description What the user is shown about its failure: `{ message }` */
                                error: Record<string, never> | null;
                                /** @description What the attempt produced */
                                outputs: Record<string, never>;
                                state: {
                                    /** @enum {string} */
                                    current: "CREATED" | "QUEUED" | "RUNNING" | "PAUSED" | "RESTARTED" | "KILLING" | "RETRYING" | "RETRIED" | "SUCCESS" | "WARNING" | "FAILED" | "KILLED" | "CANCELLED" | "SUBMITTED" | "RESUBMITTED" | "SKIPPED";
                                    /** Format: date-time */
                                    endDate: string | null;
                                    /** Format: date-time */
                                    startDate: string | null;
                                };
                                workerId: string | null;
                                workerQueueId: string | null;
                            }[];
                            /** @description Why it waits or went where it went */
                            dispatchReason: string | null;
                            /** @description Why it failed (or ended in WARNING) */
                            error: {
                                message: string;
                            } | null;
                            executionId: string;
                            id: string;
                            outputs: Record<string, never>;
                            parentTaskRunId: string | null;
                            state: {
                                /** @enum {string} */
                                current: "CREATED" | "QUEUED" | "RUNNING" | "PAUSED" | "RESTARTED" | "KILLING" | "RETRYING" | "RETRIED" | "SUCCESS" | "WARNING" | "FAILED" | "KILLED" | "CANCELLED" | "SUBMITTED" | "RESUBMITTED" | "SKIPPED";
                                /** Format: date-time */
                                endDate: string | null;
                                /** @description Every state it went through, oldest first */
                                histories: {
                                    /** Format: date-time */
                                    date: string;
                                    /** @enum {string} */
                                    state: "CREATED" | "QUEUED" | "RUNNING" | "PAUSED" | "RESTARTED" | "KILLING" | "RETRYING" | "RETRIED" | "SUCCESS" | "WARNING" | "FAILED" | "KILLED" | "CANCELLED" | "SUBMITTED" | "RESUBMITTED" | "SKIPPED";
                                }[];
                                /** Format: date-time */
                                startDate: string | null;
                            };
                            taskId: string;
                            /** @description The ForEach value this run iterates on */
                            value: string | null;
                            workerQueueId: string | null;
                        }[];
                        tenantId: string;
                        /** Format: date-time */
                        updatedAt: string;
                        version: number;
                    };
                };
            };
            /** @description No or bad API token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (exists, or wrong state) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    FlowsController_create: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenant: string;
            };
            cookie?: never;
        };
        /** @description The flow in YAML (at most 1 MiB) */
        requestBody: {
            content: {
                "application/x-yaml": string;
            };
        };
        responses: {
            /** @description The flow, revision 1 (or the next one after a delete) */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        namespace: string;
                        revision: number;
                        /** @description The YAML exactly as it was sent */
                        source: string;
                        tenantId: string;
                        /**
                         * Format: date-time
                         * @description When this revision was saved
                         */
                        updated: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description No or bad API token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (exists, or wrong state) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unsupported media type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid content (each problem with its path, and its line for YAML) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    FlowsController_get: {
        parameters: {
            query?: {
                revision?: number;
            };
            header?: never;
            path: {
                id: string;
                namespace: string;
                tenant: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The flow */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        namespace: string;
                        revision: number;
                        /** @description The YAML exactly as it was sent */
                        source: string;
                        tenantId: string;
                        /**
                         * Format: date-time
                         * @description When this revision was saved
                         */
                        updated: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Malformed request (each problem with its JSON path) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No or bad API token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    FlowsController_save: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                namespace: string;
                tenant: string;
            };
            cookie?: never;
        };
        /** @description The flow in YAML (at most 1 MiB) */
        requestBody: {
            content: {
                "application/x-yaml": string;
            };
        };
        responses: {
            /** @description The flow with its new revision */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        namespace: string;
                        revision: number;
                        /** @description The YAML exactly as it was sent */
                        source: string;
                        tenantId: string;
                        /**
                         * Format: date-time
                         * @description When this revision was saved
                         */
                        updated: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The flow did not exist and was created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        namespace: string;
                        revision: number;
                        /** @description The YAML exactly as it was sent */
                        source: string;
                        tenantId: string;
                        /**
                         * Format: date-time
                         * @description When this revision was saved
                         */
                        updated: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description No or bad API token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unsupported media type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid content (each problem with its path, and its line for YAML) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    FlowsController_delete: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                namespace: string;
                tenant: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description No or bad API token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    FlowsController_search: {
        parameters: {
            query?: {
                /** @description This namespace and its children */
                namespace?: string;
                /** @description 1-based */
                page?: number;
                /** @description Text in the flow id or namespace */
                q?: string;
                /** @description At most 200, default 25 */
                size?: number;
            };
            header?: never;
            path: {
                tenant: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of live flows */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        results: ({
                            id: string;
                            namespace: string;
                            revision: number;
                            /** @description The YAML exactly as it was sent */
                            source: string;
                            tenantId: string;
                            /**
                             * Format: date-time
                             * @description When this revision was saved
                             */
                            updated: string;
                        } & {
                            [key: string]: unknown;
                        })[];
                        /** @description Matches in every page */
                        total: number;
                    };
                };
            };
            /** @description Malformed request (each problem with its JSON path) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No or bad API token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    FlowsController_validate: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenant: string;
            };
            cookie?: never;
        };
        /** @description The flow in YAML (at most 1 MiB) */
        requestBody: {
            content: {
                "application/x-yaml": string;
            };
        };
        responses: {
            /** @description Every problem: problems refuse the flow; entries with severity 'WARNING' (a deprecated spelling) do not */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        column?: number;
                        /** @description 1-based line in the YAML source, for flow problems */
                        line?: number;
                        message: string;
                        /** @example tasks[2].workerSelector.fallback */
                        path: string;
                        /**
                         * @description Set on what is accepted but deprecated (flow validation); a problem without it refuses the flow
                         * @enum {string}
                         */
                        severity?: "WARNING";
                    }[];
                };
            };
            /** @description No or bad API token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unsupported media type */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    LogsController_list: {
        parameters: {
            query?: {
                /** @description This level and the ones above it */
                minLevel?: "TRACE" | "DEBUG" | "INFO" | "WARN" | "ERROR";
                /** @description The lines of one task run */
                taskRunId?: string;
            };
            header?: never;
            path: {
                executionId: string;
                tenant: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The lines, oldest first */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        attempt: number;
                        executionId: string;
                        /** @enum {string} */
                        level: "TRACE" | "DEBUG" | "INFO" | "WARN" | "ERROR";
                        message: string;
                        taskRunId: string;
                        /** Format: date-time */
                        timestamp: string;
                    }[];
                };
            };
            /** @description Malformed request (each problem with its JSON path) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No or bad API token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    LogsController_follow: {
        parameters: {
            query?: {
                /** @description This level and the ones above it */
                minLevel?: "TRACE" | "DEBUG" | "INFO" | "WARN" | "ERROR";
                /** @description The lines of one task run */
                taskRunId?: string;
            };
            header?: never;
            path: {
                executionId: string;
                tenant: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description `log` events, one line each (as the list answers them), then `end` */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                };
            };
            /** @description Malformed request (each problem with its JSON path) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No or bad API token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    NamespacesController_list: {
        parameters: {
            query?: {
                /** @description This namespace and its children */
                namespace?: string;
            };
            header?: never;
            path: {
                tenant: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Live flows in exactly this namespace */
                        flowCount: number;
                        namespace: string;
                        variables: Record<string, never> | null;
                        /** @description The default worker selector it declares */
                        workerSelector: Record<string, never> | null;
                    }[];
                };
            };
            /** @description Malformed request (each problem with its JSON path) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No or bad API token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the permission the route needs (named in the detail) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    NamespacesController_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                namespace: string;
                tenant: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Live flows in exactly this namespace */
                        flowCount: number;
                        namespace: string;
                        variables: Record<string, never> | null;
                        /** @description The default worker selector it declares */
                        workerSelector: Record<string, never> | null;
                    };
                };
            };
            /** @description No or bad API token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the permission the route needs (named in the detail) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    NamespaceFilesController_get: {
        parameters: {
            query: {
                /** @description The file, relative to the namespace files root */
                path: string;
            };
            header?: never;
            path: {
                namespace: string;
                tenant: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The file's bytes */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/octet-stream": string;
                };
            };
            /** @description Malformed request (each problem with its JSON path) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No or bad API token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the permission the route needs (named in the detail) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    NamespaceFilesController_put: {
        parameters: {
            query: {
                /** @description The file, relative to the namespace files root */
                path: string;
            };
            header?: never;
            path: {
                namespace: string;
                tenant: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The file as stored */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Relative to the namespace files root */
                        path: string;
                        /** @description bytes */
                        size: number;
                        /** @description Its kestra:/// URI */
                        uri: string;
                    };
                };
            };
            /** @description Malformed request (each problem with its JSON path) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No or bad API token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the permission the route needs (named in the detail) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    NamespaceFilesController_remove: {
        parameters: {
            query: {
                /** @description The file, relative to the namespace files root */
                path: string;
            };
            header?: never;
            path: {
                namespace: string;
                tenant: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Malformed request (each problem with its JSON path) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No or bad API token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the permission the route needs (named in the detail) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    NamespaceFilesController_list: {
        parameters: {
            query?: {
                /** @description A folder, relative to the namespace files root */
                path?: string;
            };
            header?: never;
            path: {
                namespace: string;
                tenant: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description In path order */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Relative to the namespace files root */
                        path: string;
                        /** @description bytes */
                        size: number;
                        /** @description Its kestra:/// URI */
                        uri: string;
                    }[];
                };
            };
            /** @description Malformed request (each problem with its JSON path) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No or bad API token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the permission the route needs (named in the detail) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    TriggersController_update: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                flowId: string;
                namespace: string;
                tenant: string;
                triggerId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    disabled: boolean;
                };
            };
        };
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Its backfill, running, paused or finished; null when none */
                        backfill: {
                            /** Format: date-time */
                            createdAt: string;
                            /**
                             * Format: date-time
                             * @description The first date not fired yet
                             */
                            currentDate: string;
                            /** @description Executions it started so far */
                            done: number;
                            /** Format: date-time */
                            end: string;
                            finished: boolean;
                            inputs: {
                                [key: string]: unknown;
                            };
                            labels: {
                                [key: string]: string;
                            };
                            paused: boolean;
                            /** Format: date-time */
                            start: string;
                        } | null;
                        /** @description Disabled through this API */
                        disabled: boolean;
                        flowId: string;
                        /** @description Schedule, Flow, Webhook or HttpPolling */
                        kind: string;
                        /**
                         * Format: date-time
                         * @description The date of its last firing
                         */
                        lastDate: string | null;
                        lastExecutionId: string | null;
                        lastExecutionState: string | null;
                        /** Format: date-time */
                        lockExpiresAt: string | null;
                        /** @description The scheduler evaluating it now */
                        lockHolder: string | null;
                        namespace: string;
                        /**
                         * Format: date-time
                         * @description When the scheduler evaluates it next; null until first evaluated
                         */
                        nextEvaluationDate: string | null;
                        triggerId: string;
                        /** Format: date-time */
                        updatedAt: string;
                    };
                };
            };
            /** @description Malformed request (each problem with its JSON path) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No or bad API token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    TriggersController_createBackfill: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                flowId: string;
                namespace: string;
                tenant: string;
                triggerId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * Format: date-time
                     * @description Last date (inclusive); now when absent
                     */
                    end?: string | null;
                    /** @description Over the schedule's own inputs */
                    inputs?: {
                        [key: string]: unknown;
                    } | null;
                    /** @description Added to every execution it starts: a map, or a list of { key, value } */
                    labels?: ({
                        [key: string]: string;
                    } | {
                        key: string;
                        value: string;
                    }[]) | null;
                    /**
                     * Format: date-time
                     * @description First date of the range (inclusive)
                     */
                    start: string;
                };
            };
        };
        responses: {
            /** @description The trigger, its backfill started */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Its backfill, running, paused or finished; null when none */
                        backfill: {
                            /** Format: date-time */
                            createdAt: string;
                            /**
                             * Format: date-time
                             * @description The first date not fired yet
                             */
                            currentDate: string;
                            /** @description Executions it started so far */
                            done: number;
                            /** Format: date-time */
                            end: string;
                            finished: boolean;
                            inputs: {
                                [key: string]: unknown;
                            };
                            labels: {
                                [key: string]: string;
                            };
                            paused: boolean;
                            /** Format: date-time */
                            start: string;
                        } | null;
                        /** @description Disabled through this API */
                        disabled: boolean;
                        flowId: string;
                        /** @description Schedule, Flow, Webhook or HttpPolling */
                        kind: string;
                        /**
                         * Format: date-time
                         * @description The date of its last firing
                         */
                        lastDate: string | null;
                        lastExecutionId: string | null;
                        lastExecutionState: string | null;
                        /** Format: date-time */
                        lockExpiresAt: string | null;
                        /** @description The scheduler evaluating it now */
                        lockHolder: string | null;
                        namespace: string;
                        /**
                         * Format: date-time
                         * @description When the scheduler evaluates it next; null until first evaluated
                         */
                        nextEvaluationDate: string | null;
                        triggerId: string;
                        /** Format: date-time */
                        updatedAt: string;
                    };
                };
            };
            /** @description Malformed request (each problem with its JSON path) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No or bad API token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (exists, or wrong state) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid content (each problem with its path, and its line for YAML) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    TriggersController_deleteBackfill: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                flowId: string;
                namespace: string;
                tenant: string;
                triggerId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Its backfill, running, paused or finished; null when none */
                        backfill: {
                            /** Format: date-time */
                            createdAt: string;
                            /**
                             * Format: date-time
                             * @description The first date not fired yet
                             */
                            currentDate: string;
                            /** @description Executions it started so far */
                            done: number;
                            /** Format: date-time */
                            end: string;
                            finished: boolean;
                            inputs: {
                                [key: string]: unknown;
                            };
                            labels: {
                                [key: string]: string;
                            };
                            paused: boolean;
                            /** Format: date-time */
                            start: string;
                        } | null;
                        /** @description Disabled through this API */
                        disabled: boolean;
                        flowId: string;
                        /** @description Schedule, Flow, Webhook or HttpPolling */
                        kind: string;
                        /**
                         * Format: date-time
                         * @description The date of its last firing
                         */
                        lastDate: string | null;
                        lastExecutionId: string | null;
                        lastExecutionState: string | null;
                        /** Format: date-time */
                        lockExpiresAt: string | null;
                        /** @description The scheduler evaluating it now */
                        lockHolder: string | null;
                        namespace: string;
                        /**
                         * Format: date-time
                         * @description When the scheduler evaluates it next; null until first evaluated
                         */
                        nextEvaluationDate: string | null;
                        triggerId: string;
                        /** Format: date-time */
                        updatedAt: string;
                    };
                };
            };
            /** @description No or bad API token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    TriggersController_pauseBackfill: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                flowId: string;
                namespace: string;
                tenant: string;
                triggerId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Its backfill, running, paused or finished; null when none */
                        backfill: {
                            /** Format: date-time */
                            createdAt: string;
                            /**
                             * Format: date-time
                             * @description The first date not fired yet
                             */
                            currentDate: string;
                            /** @description Executions it started so far */
                            done: number;
                            /** Format: date-time */
                            end: string;
                            finished: boolean;
                            inputs: {
                                [key: string]: unknown;
                            };
                            labels: {
                                [key: string]: string;
                            };
                            paused: boolean;
                            /** Format: date-time */
                            start: string;
                        } | null;
                        /** @description Disabled through this API */
                        disabled: boolean;
                        flowId: string;
                        /** @description Schedule, Flow, Webhook or HttpPolling */
                        kind: string;
                        /**
                         * Format: date-time
                         * @description The date of its last firing
                         */
                        lastDate: string | null;
                        lastExecutionId: string | null;
                        lastExecutionState: string | null;
                        /** Format: date-time */
                        lockExpiresAt: string | null;
                        /** @description The scheduler evaluating it now */
                        lockHolder: string | null;
                        namespace: string;
                        /**
                         * Format: date-time
                         * @description When the scheduler evaluates it next; null until first evaluated
                         */
                        nextEvaluationDate: string | null;
                        triggerId: string;
                        /** Format: date-time */
                        updatedAt: string;
                    };
                };
            };
            /** @description No or bad API token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    TriggersController_resumeBackfill: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                flowId: string;
                namespace: string;
                tenant: string;
                triggerId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Its backfill, running, paused or finished; null when none */
                        backfill: {
                            /** Format: date-time */
                            createdAt: string;
                            /**
                             * Format: date-time
                             * @description The first date not fired yet
                             */
                            currentDate: string;
                            /** @description Executions it started so far */
                            done: number;
                            /** Format: date-time */
                            end: string;
                            finished: boolean;
                            inputs: {
                                [key: string]: unknown;
                            };
                            labels: {
                                [key: string]: string;
                            };
                            paused: boolean;
                            /** Format: date-time */
                            start: string;
                        } | null;
                        /** @description Disabled through this API */
                        disabled: boolean;
                        flowId: string;
                        /** @description Schedule, Flow, Webhook or HttpPolling */
                        kind: string;
                        /**
                         * Format: date-time
                         * @description The date of its last firing
                         */
                        lastDate: string | null;
                        lastExecutionId: string | null;
                        lastExecutionState: string | null;
                        /** Format: date-time */
                        lockExpiresAt: string | null;
                        /** @description The scheduler evaluating it now */
                        lockHolder: string | null;
                        namespace: string;
                        /**
                         * Format: date-time
                         * @description When the scheduler evaluates it next; null until first evaluated
                         */
                        nextEvaluationDate: string | null;
                        triggerId: string;
                        /** Format: date-time */
                        updatedAt: string;
                    };
                };
            };
            /** @description No or bad API token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    TriggersController_unlock: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                flowId: string;
                namespace: string;
                tenant: string;
                triggerId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Its backfill, running, paused or finished; null when none */
                        backfill: {
                            /** Format: date-time */
                            createdAt: string;
                            /**
                             * Format: date-time
                             * @description The first date not fired yet
                             */
                            currentDate: string;
                            /** @description Executions it started so far */
                            done: number;
                            /** Format: date-time */
                            end: string;
                            finished: boolean;
                            inputs: {
                                [key: string]: unknown;
                            };
                            labels: {
                                [key: string]: string;
                            };
                            paused: boolean;
                            /** Format: date-time */
                            start: string;
                        } | null;
                        /** @description Disabled through this API */
                        disabled: boolean;
                        flowId: string;
                        /** @description Schedule, Flow, Webhook or HttpPolling */
                        kind: string;
                        /**
                         * Format: date-time
                         * @description The date of its last firing
                         */
                        lastDate: string | null;
                        lastExecutionId: string | null;
                        lastExecutionState: string | null;
                        /** Format: date-time */
                        lockExpiresAt: string | null;
                        /** @description The scheduler evaluating it now */
                        lockHolder: string | null;
                        namespace: string;
                        /**
                         * Format: date-time
                         * @description When the scheduler evaluates it next; null until first evaluated
                         */
                        nextEvaluationDate: string | null;
                        triggerId: string;
                        /** Format: date-time */
                        updatedAt: string;
                    };
                };
            };
            /** @description No or bad API token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    TriggersController_search: {
        parameters: {
            query?: {
                flowId?: string;
                /** @description This namespace and its children */
                namespace?: string;
                /** @description 1-based */
                page?: number;
                /** @description At most 200, default 25 */
                size?: number;
            };
            header?: never;
            path: {
                tenant: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        results: {
                            /** @description Its backfill, running, paused or finished; null when none */
                            backfill: {
                                /** Format: date-time */
                                createdAt: string;
                                /**
                                 * Format: date-time
                                 * @description The first date not fired yet
                                 */
                                currentDate: string;
                                /** @description Executions it started so far */
                                done: number;
                                /** Format: date-time */
                                end: string;
                                finished: boolean;
                                inputs: {
                                    [key: string]: unknown;
                                };
                                labels: {
                                    [key: string]: string;
                                };
                                paused: boolean;
                                /** Format: date-time */
                                start: string;
                            } | null;
                            /** @description Disabled through this API */
                            disabled: boolean;
                            flowId: string;
                            /** @description Schedule, Flow, Webhook or HttpPolling */
                            kind: string;
                            /**
                             * Format: date-time
                             * @description The date of its last firing
                             */
                            lastDate: string | null;
                            lastExecutionId: string | null;
                            lastExecutionState: string | null;
                            /** Format: date-time */
                            lockExpiresAt: string | null;
                            /** @description The scheduler evaluating it now */
                            lockHolder: string | null;
                            namespace: string;
                            /**
                             * Format: date-time
                             * @description When the scheduler evaluates it next; null until first evaluated
                             */
                            nextEvaluationDate: string | null;
                            triggerId: string;
                            /** Format: date-time */
                            updatedAt: string;
                        }[];
                        /** @description Matches in every page */
                        total: number;
                    };
                };
            };
            /** @description Malformed request (each problem with its JSON path) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No or bad API token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    AuthController_login: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    password: string;
                    username: string;
                };
            };
        };
        responses: {
            /** @description Logged in */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Send as Authorization: Bearer <accessToken> */
                        accessToken: string;
                        /** Format: date-time */
                        expiresAt: string;
                        /** @enum {string} */
                        tokenType: "Bearer";
                        user: {
                            instanceAdmin: boolean;
                            /** @enum {string} */
                            role: "viewer" | "developer" | "admin";
                            tenant: string;
                            username: string;
                        };
                    };
                };
            };
            /** @description Malformed request (each problem with its JSON path) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /**
             * @description No or bad API token
             *
             *     No or bad API token
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    AuthController_logout: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Logged out */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description No or bad API token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    AuthController_me: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The caller */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        instanceAdmin: boolean;
                        namespace: string | null;
                        /** @enum {string} */
                        role: "viewer" | "developer" | "admin";
                        tenant: string;
                        /** @description null for an API token */
                        username: string | null;
                    };
                };
            };
            /**
             * @description No or bad API token
             *
             *     No or bad API token
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    AuthController_changePassword: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    currentPassword: string;
                    /** @description Stored only as its argon2id hash */
                    newPassword: string;
                };
            };
        };
        responses: {
            /** @description Changed */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Malformed request (each problem with its JSON path) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /**
             * @description No or bad API token
             *
             *     No or bad API token
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    AuthController_refresh: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Refreshed */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Send as Authorization: Bearer <accessToken> */
                        accessToken: string;
                        /** Format: date-time */
                        expiresAt: string;
                        /** @enum {string} */
                        tokenType: "Bearer";
                        user: {
                            instanceAdmin: boolean;
                            /** @enum {string} */
                            role: "viewer" | "developer" | "admin";
                            tenant: string;
                            username: string;
                        };
                    };
                };
            };
            /**
             * @description No or bad API token
             *
             *     No or bad API token
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Error */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    InstanceAuditLogsController_search: {
        parameters: {
            query?: {
                /** @description e.g. flow.update, execution.kill */
                action?: string;
                /** @description An API token's id or name, a user's id or username */
                actor?: string;
                /** @description The request's X-Correlation-Id */
                correlationId?: string;
                /** @description ISO-8601 date-time: at or after */
                from?: string;
                /** @description This namespace and its children */
                namespace?: string;
                outcome?: "success" | "failure" | "denied";
                /** @description 1-based */
                page?: number;
                /** @description e.g. company.team/hello, an execution id */
                resourceId?: string;
                /** @description e.g. flow, execution, api-token */
                resourceType?: string;
                /** @description At most 200, default 25 */
                size?: number;
                /** @description A tenant id, or `instance` for the instance routes (they have no tenant) */
                tenant?: string;
                /** @description ISO-8601 date-time: before */
                to?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description { results, total } */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        results: {
                            /** @example flow.update */
                            action: string;
                            actor: {
                                /** @description The API token's id or the user's id */
                                id: string | null;
                                /** @description The API token's name or the username */
                                name: string | null;
                                /** @enum {string} */
                                type: "api-token" | "user" | "anonymous";
                            };
                            clientIp: string | null;
                            correlationId: string | null;
                            /** Format: uuid */
                            id: string;
                            namespace: string | null;
                            /** Format: date-time */
                            occurredAt: string;
                            /** @enum {string} */
                            outcome: "success" | "failure" | "denied";
                            /** @example company.team/hello */
                            resourceId: string | null;
                            /** @example flow */
                            resourceType: string;
                            /** @description The HTTP status answered */
                            status: number;
                            /** @description null on instance routes */
                            tenant: string | null;
                            userAgent: string | null;
                        }[];
                        /** @description Matches in every page */
                        total: number;
                    };
                };
            };
            /** @description Malformed request (each problem with its JSON path) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /**
             * @description No or bad API token
             *
             *     No or bad API token
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the permission the route needs (named in the detail) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    DeadLettersController_list: {
        parameters: {
            query?: {
                /** @description 1-based */
                page?: number;
                /** @description At most 200, default 25 */
                size?: number;
                topic?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        results: {
                            /** @description Tries before it was parked */
                            attempts: number;
                            /** @description Size of the payload */
                            bytes: number;
                            /** @description The consumer group that could not handle it */
                            consumerGroup: string;
                            /** Format: date-time */
                            createdAt: string;
                            executionId: string | null;
                            /** Format: uuid */
                            id: string;
                            key: string;
                            offset: string;
                            partition: number;
                            /** @description Why it can never be handled as it is */
                            reason: string;
                            tenantId: string | null;
                            topic: string;
                        }[];
                        /** @description Matches in every page */
                        total: number;
                    };
                };
            };
            /** @description Malformed request (e.g. a body that is not JSON) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No or bad API token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token is not an instance admin, or the entity is reserved (`default`, `system`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    DeadLettersController_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Tries before it was parked */
                        attempts: number;
                        /** @description Size of the payload */
                        bytes: number;
                        /** @description The consumer group that could not handle it */
                        consumerGroup: string;
                        /** Format: date-time */
                        createdAt: string;
                        executionId: string | null;
                        /** Format: uuid */
                        id: string;
                        key: string;
                        offset: string;
                        partition: number;
                        /** @description Why it can never be handled as it is */
                        reason: string;
                        tenantId: string | null;
                        topic: string;
                    };
                };
            };
            /** @description No or bad API token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token is not an instance admin, or the entity is reserved (`default`, `system`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown worker queue, worker group, subscription or token */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    DeadLettersController_drop: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Dropped */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description No or bad API token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token is not an instance admin, or the entity is reserved (`default`, `system`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown worker queue, worker group, subscription or token */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    DeadLettersController_replay: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Published again */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Tries before it was parked */
                        attempts: number;
                        /** @description Size of the payload */
                        bytes: number;
                        /** @description The consumer group that could not handle it */
                        consumerGroup: string;
                        /** Format: date-time */
                        createdAt: string;
                        executionId: string | null;
                        /** Format: uuid */
                        id: string;
                        key: string;
                        offset: string;
                        partition: number;
                        /** @description Why it can never be handled as it is */
                        reason: string;
                        tenantId: string | null;
                        topic: string;
                    };
                };
            };
            /** @description No or bad API token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token is not an instance admin, or the entity is reserved (`default`, `system`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown worker queue, worker group, subscription or token */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database or the queue is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    MaintenanceController_current: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        enabled: boolean;
                        /**
                         * Format: date-time
                         * @description When the current (or last) maintenance began
                         */
                        enteredAt: string | null;
                        /** @description The API token or user that entered it */
                        enteredBy: string | null;
                        /**
                         * Format: date-time
                         * @description When the last maintenance ended
                         */
                        exitedAt: string | null;
                        /**
                         * @description Maintenance mode covers the whole cluster
                         * @enum {string}
                         */
                        scope: "instance";
                    };
                };
            };
            /** @description No or bad API token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token is not an instance admin, or the entity is reserved (`default`, `system`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database or the queue is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    MaintenanceController_enter: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        enabled: boolean;
                        /**
                         * Format: date-time
                         * @description When the current (or last) maintenance began
                         */
                        enteredAt: string | null;
                        /** @description The API token or user that entered it */
                        enteredBy: string | null;
                        /**
                         * Format: date-time
                         * @description When the last maintenance ended
                         */
                        exitedAt: string | null;
                        /**
                         * @description Maintenance mode covers the whole cluster
                         * @enum {string}
                         */
                        scope: "instance";
                    };
                };
            };
            /** @description No or bad API token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token is not an instance admin, or the entity is reserved (`default`, `system`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database or the queue is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    MaintenanceController_exit: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        enabled: boolean;
                        /**
                         * Format: date-time
                         * @description When the current (or last) maintenance began
                         */
                        enteredAt: string | null;
                        /** @description The API token or user that entered it */
                        enteredBy: string | null;
                        /**
                         * Format: date-time
                         * @description When the last maintenance ended
                         */
                        exitedAt: string | null;
                        /**
                         * @description Maintenance mode covers the whole cluster
                         * @enum {string}
                         */
                        scope: "instance";
                    };
                };
            };
            /** @description No or bad API token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token is not an instance admin, or the entity is reserved (`default`, `system`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database or the queue is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    InstanceServicesController_list: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: date-time */
                        heartbeatAt: string;
                        host: string;
                        id: string;
                        /** @enum {string} */
                        role: "API" | "EXECUTOR" | "CONTROLLER" | "WORKER" | "SCHEDULER" | "INDEXER" | "STANDALONE";
                        /** Format: date-time */
                        startedAt: string;
                        /**
                         * @description The liveness state
                         * @enum {string}
                         */
                        state: "CREATED" | "RUNNING" | "MAINTENANCE" | "DISCONNECTED" | "TERMINATING" | "TERMINATED" | "NOT_RUNNING";
                        /** Format: date-time */
                        stateChangedAt: string;
                    }[];
                };
            };
            /** @description No or bad API token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token is not an instance admin, or the entity is reserved (`default`, `system`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    TenantsController_list: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The tenants */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: date-time */
                        createdAt: string;
                        /** Format: date-time */
                        disabledAt: string | null;
                        id: string;
                        name: string;
                    }[];
                };
            };
            /**
             * @description No or bad API token
             *
             *     No or bad API token
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the permission the route needs (named in the detail) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    TenantsController_create: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The tenant id: must be 1 to 63 lowercase letters, digits, "_" or "-", starting with a letter or digit */
                    id: string;
                    name?: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: date-time */
                        createdAt: string;
                        /** Format: date-time */
                        disabledAt: string | null;
                        id: string;
                        name: string;
                    };
                };
            };
            /** @description Malformed request (each problem with its JSON path) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /**
             * @description No or bad API token
             *
             *     No or bad API token
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the permission the route needs (named in the detail) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (exists, or wrong state) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    TenantsController_disable: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The tenant */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: date-time */
                        createdAt: string;
                        /** Format: date-time */
                        disabledAt: string | null;
                        id: string;
                        name: string;
                    };
                };
            };
            /**
             * @description No or bad API token
             *
             *     No or bad API token
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the permission the route needs (named in the detail) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    TenantsController_enable: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The tenant */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: date-time */
                        createdAt: string;
                        /** Format: date-time */
                        disabledAt: string | null;
                        id: string;
                        name: string;
                    };
                };
            };
            /**
             * @description No or bad API token
             *
             *     No or bad API token
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the permission the route needs (named in the detail) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    UsersController_list: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The users */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: date-time */
                        createdAt: string;
                        instanceAdmin: boolean;
                        /** Format: date-time */
                        lockedUntil: string | null;
                        /** @enum {string} */
                        role: "viewer" | "developer" | "admin";
                        tenant: string;
                        /** Format: date-time */
                        updatedAt: string;
                        username: string;
                    }[];
                };
            };
            /**
             * @description No or bad API token
             *
             *     No or bad API token
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the permission the route needs (named in the detail) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    UsersController_create: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @default false */
                    instanceAdmin?: boolean;
                    /** @description Stored only as its argon2id hash */
                    password: string;
                    /** @enum {string} */
                    role: "viewer" | "developer" | "admin";
                    /** @default main */
                    tenant?: string;
                    username: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: date-time */
                        createdAt: string;
                        instanceAdmin: boolean;
                        /** Format: date-time */
                        lockedUntil: string | null;
                        /** @enum {string} */
                        role: "viewer" | "developer" | "admin";
                        tenant: string;
                        /** Format: date-time */
                        updatedAt: string;
                        username: string;
                    };
                };
            };
            /** @description Malformed request (each problem with its JSON path) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /**
             * @description No or bad API token
             *
             *     No or bad API token
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the permission the route needs (named in the detail) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (exists, or wrong state) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    UsersController_update: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                username: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    instanceAdmin?: boolean;
                    /** @description Stored only as its argon2id hash */
                    password?: string;
                    /** @enum {string} */
                    role?: "viewer" | "developer" | "admin";
                    tenant?: string;
                };
            };
        };
        responses: {
            /** @description The user */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: date-time */
                        createdAt: string;
                        instanceAdmin: boolean;
                        /** Format: date-time */
                        lockedUntil: string | null;
                        /** @enum {string} */
                        role: "viewer" | "developer" | "admin";
                        tenant: string;
                        /** Format: date-time */
                        updatedAt: string;
                        username: string;
                    };
                };
            };
            /** @description Malformed request (each problem with its JSON path) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /**
             * @description No or bad API token
             *
             *     No or bad API token
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the permission the route needs (named in the detail) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    UsersController_remove: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                username: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /**
             * @description No or bad API token
             *
             *     No or bad API token
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token lacks the permission the route needs (named in the detail) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    WorkerGroupsController_list: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: date-time */
                        createdAt: string;
                        description: string | null;
                        /** @description RFC 1123 label: lowercase letters, digits and `-`, at most 63 characters */
                        id: string;
                        name: string;
                        /** @description The `default` group */
                        reserved: boolean;
                        /**
                         * @description The jobs of a dead worker of the group: re-run after the 10 s adoption grace (AFTER_TERMINATION_GRACE_PERIOD), at once (IMMEDIATELY), or never (NEVER: the task run fails)
                         * @enum {string}
                         */
                        restartStrategy: "NEVER" | "IMMEDIATELY" | "AFTER_TERMINATION_GRACE_PERIOD";
                        subscriptions: {
                            /** @enum {string} */
                            mode: "STRICT" | "ELASTIC";
                            /** @description Share of each worker's slots reserved for this queue; null: none reserved */
                            reservedPercent: number | null;
                            workerQueueId: string;
                        }[];
                        /** Format: date-time */
                        updatedAt: string;
                    }[];
                };
            };
            /** @description No or bad API token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token is not an instance admin, or the entity is reserved (`default`, `system`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    WorkerGroupsController_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: date-time */
                        createdAt: string;
                        description: string | null;
                        /** @description RFC 1123 label: lowercase letters, digits and `-`, at most 63 characters */
                        id: string;
                        name: string;
                        /** @description The `default` group */
                        reserved: boolean;
                        /**
                         * @description The jobs of a dead worker of the group: re-run after the 10 s adoption grace (AFTER_TERMINATION_GRACE_PERIOD), at once (IMMEDIATELY), or never (NEVER: the task run fails)
                         * @enum {string}
                         */
                        restartStrategy: "NEVER" | "IMMEDIATELY" | "AFTER_TERMINATION_GRACE_PERIOD";
                        subscriptions: {
                            /** @enum {string} */
                            mode: "STRICT" | "ELASTIC";
                            /** @description Share of each worker's slots reserved for this queue; null: none reserved */
                            reservedPercent: number | null;
                            workerQueueId: string;
                        }[];
                        /** Format: date-time */
                        updatedAt: string;
                    };
                };
            };
            /** @description No or bad API token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token is not an instance admin, or the entity is reserved (`default`, `system`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown worker queue, worker group, subscription or token */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    WorkerGroupsController_put: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    description?: string;
                    name: string;
                    /**
                     * @description The jobs of a dead worker of the group: re-run after the 10 s adoption grace (AFTER_TERMINATION_GRACE_PERIOD), at once (IMMEDIATELY), or never (NEVER: the task run fails); absent keeps the group's (a new group: AFTER_TERMINATION_GRACE_PERIOD)
                     * @enum {string}
                     */
                    restartStrategy?: "NEVER" | "IMMEDIATELY" | "AFTER_TERMINATION_GRACE_PERIOD";
                    /** @description When given, replaces the group's subscriptions (the `default` group always keeps `default`); absent keeps them */
                    subscriptions?: {
                        /**
                         * @default STRICT
                         * @enum {string}
                         */
                        mode?: "STRICT" | "ELASTIC";
                        /** @description Share of each worker's slots reserved for this queue; the group's percentages add up to at most 100 */
                        reservedPercent?: number;
                        workerQueueId: string;
                    }[];
                };
            };
        };
        responses: {
            /** @description Updated, or already as asked (then nothing changed) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: date-time */
                        createdAt: string;
                        description: string | null;
                        /** @description RFC 1123 label: lowercase letters, digits and `-`, at most 63 characters */
                        id: string;
                        name: string;
                        /** @description The `default` group */
                        reserved: boolean;
                        /**
                         * @description The jobs of a dead worker of the group: re-run after the 10 s adoption grace (AFTER_TERMINATION_GRACE_PERIOD), at once (IMMEDIATELY), or never (NEVER: the task run fails)
                         * @enum {string}
                         */
                        restartStrategy: "NEVER" | "IMMEDIATELY" | "AFTER_TERMINATION_GRACE_PERIOD";
                        subscriptions: {
                            /** @enum {string} */
                            mode: "STRICT" | "ELASTIC";
                            /** @description Share of each worker's slots reserved for this queue; null: none reserved */
                            reservedPercent: number | null;
                            workerQueueId: string;
                        }[];
                        /** Format: date-time */
                        updatedAt: string;
                    };
                };
            };
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: date-time */
                        createdAt: string;
                        description: string | null;
                        /** @description RFC 1123 label: lowercase letters, digits and `-`, at most 63 characters */
                        id: string;
                        name: string;
                        /** @description The `default` group */
                        reserved: boolean;
                        /**
                         * @description The jobs of a dead worker of the group: re-run after the 10 s adoption grace (AFTER_TERMINATION_GRACE_PERIOD), at once (IMMEDIATELY), or never (NEVER: the task run fails)
                         * @enum {string}
                         */
                        restartStrategy: "NEVER" | "IMMEDIATELY" | "AFTER_TERMINATION_GRACE_PERIOD";
                        subscriptions: {
                            /** @enum {string} */
                            mode: "STRICT" | "ELASTIC";
                            /** @description Share of each worker's slots reserved for this queue; null: none reserved */
                            reservedPercent: number | null;
                            workerQueueId: string;
                        }[];
                        /** Format: date-time */
                        updatedAt: string;
                    };
                };
            };
            /** @description Malformed request (e.g. a body that is not JSON) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No or bad API token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token is not an instance admin, or the entity is reserved (`default`, `system`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown worker queue, worker group, subscription or token */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid content: one entry per problem, with its JSON path (e.g. `subscriptions[1].reservedPercent`) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database or the queue is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    WorkerGroupsController_delete: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description No or bad API token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token is not an instance admin, or the entity is reserved (`default`, `system`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown worker queue, worker group, subscription or token */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database or the queue is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    WorkerGroupsController_capacity: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        workerGroupId: string;
                        workers: {
                            /** @description Jobs running on another subscription's idle reserved slots (ELASTIC) */
                            borrowed: number;
                            /** @description This subscription's reserved slots used by another one */
                            lent: number;
                            name: string;
                            /** @description False until the controller wrote a ledger snapshot (every figure is then 0) */
                            reported: boolean;
                            /** @description Reserved slots */
                            reserved: number;
                            slots: number;
                            /** @enum {string} */
                            state: "CONNECTED" | "DRAINING";
                            subscriptions: {
                                /** @description Jobs running on another subscription's idle reserved slots (ELASTIC) */
                                borrowed: number;
                                /** @description This subscription's reserved slots used by another one */
                                lent: number;
                                /** @description STRICT or ELASTIC, as the snapshot names it */
                                mode: string | null;
                                /** @description Reserved slots */
                                reserved: number;
                                reservedPercent: number | null;
                                /** @description Slots running jobs */
                                used: number;
                                /** @description Jobs waiting for a slot, as the controller last reported them; 0 when its snapshot carries no waiting count */
                                waiting: number;
                                workerQueueId: string;
                            }[];
                            /** @description Slots running jobs */
                            used: number;
                            /** @description Jobs waiting for a slot, as the controller last reported them; 0 when its snapshot carries no waiting count */
                            waiting: number;
                            workerId: string;
                        }[];
                    };
                };
            };
            /** @description No or bad API token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token is not an instance admin, or the entity is reserved (`default`, `system`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown worker queue, worker group, subscription or token */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    WorkerGroupsController_putSubscription: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                queueId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /**
                     * @default STRICT
                     * @enum {string}
                     */
                    mode?: "STRICT" | "ELASTIC";
                    /** @description Share of each worker's slots reserved for this queue; the group's percentages add up to at most 100 */
                    reservedPercent?: number;
                };
            };
        };
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        mode: "STRICT" | "ELASTIC";
                        /** @description Share of each worker's slots reserved for this queue; null: none reserved */
                        reservedPercent: number | null;
                        workerQueueId: string;
                    };
                };
            };
            /** @description Malformed request (e.g. a body that is not JSON) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No or bad API token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token is not an instance admin, or the entity is reserved (`default`, `system`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown worker queue, worker group, subscription or token */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid content: one entry per problem, with its JSON path (e.g. `subscriptions[1].reservedPercent`) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database or the queue is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    WorkerGroupsController_deleteSubscription: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                queueId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Removed */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description No or bad API token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token is not an instance admin, or the entity is reserved (`default`, `system`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown worker queue, worker group, subscription or token */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database or the queue is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    WorkerGroupsController_listTokens: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: date-time */
                        createdAt: string;
                        /** Format: uuid */
                        id: string;
                        /** Format: date-time */
                        lastUsedAt: string | null;
                        name: string;
                        /** Format: date-time */
                        revokedAt: string | null;
                    }[];
                };
            };
            /** @description No or bad API token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token is not an instance admin, or the entity is reserved (`default`, `system`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown worker queue, worker group, subscription or token */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    WorkerGroupsController_mintToken: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name: string;
                };
            };
        };
        responses: {
            /** @description The token with its value */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: date-time */
                        createdAt: string;
                        /** Format: uuid */
                        id: string;
                        name: string;
                        /** @description The registration token: shown only in this answer, stored only as its SHA-256 hash */
                        token: string;
                    };
                };
            };
            /** @description Malformed request (e.g. a body that is not JSON) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No or bad API token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token is not an instance admin, or the entity is reserved (`default`, `system`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown worker queue, worker group, subscription or token */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict: the entity is still in use, or a token of that name exists */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid content: one entry per problem, with its JSON path (e.g. `subscriptions[1].reservedPercent`) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    WorkerGroupsController_revokeToken: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                tokenId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Revoked (revoking again changes nothing) */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description No or bad API token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token is not an instance admin, or the entity is reserved (`default`, `system`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown worker queue, worker group, subscription or token */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database or the queue is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    WorkerGroupsController_workers: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: date-time */
                        connectedAt: string;
                        /** @description The service instance id of the controller holding its stream */
                        controller: string;
                        draining: boolean;
                        id: string;
                        /** Format: date-time */
                        lastHeartbeatAt: string;
                        name: string;
                        /** @description The worker queues it serves now */
                        queues: string[];
                        slots: number;
                        /** @enum {string} */
                        state: "CONNECTED" | "DRAINING";
                    }[];
                };
            };
            /** @description No or bad API token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token is not an instance admin, or the entity is reserved (`default`, `system`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown worker queue, worker group, subscription or token */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    WorkerQueuesController_list: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        allowedTenants: string[];
                        /** Format: date-time */
                        createdAt: string;
                        description: string | null;
                        /** @description RFC 1123 label: lowercase letters, digits and `-`, at most 63 characters */
                        id: string;
                        /** @description `default` and `system` */
                        reserved: boolean;
                        tags: string[];
                        /** Format: date-time */
                        updatedAt: string;
                    }[];
                };
            };
            /** @description No or bad API token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token is not an instance admin, or the entity is reserved (`default`, `system`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    WorkerQueuesController_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        allowedTenants: string[];
                        /** Format: date-time */
                        createdAt: string;
                        description: string | null;
                        /** @description RFC 1123 label: lowercase letters, digits and `-`, at most 63 characters */
                        id: string;
                        /** @description `default` and `system` */
                        reserved: boolean;
                        tags: string[];
                        /** Format: date-time */
                        updatedAt: string;
                    };
                };
            };
            /** @description No or bad API token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token is not an instance admin, or the entity is reserved (`default`, `system`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown worker queue, worker group, subscription or token */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    WorkerQueuesController_put: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Empty or absent: every tenant */
                    allowedTenants?: string[];
                    description?: string;
                    /** @description Non-empty set; no two queues have the same set */
                    tags: string[];
                };
            };
        };
        responses: {
            /** @description Updated, or already as asked (then nothing changed) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        allowedTenants: string[];
                        /** Format: date-time */
                        createdAt: string;
                        description: string | null;
                        /** @description RFC 1123 label: lowercase letters, digits and `-`, at most 63 characters */
                        id: string;
                        /** @description `default` and `system` */
                        reserved: boolean;
                        tags: string[];
                        /** Format: date-time */
                        updatedAt: string;
                    };
                };
            };
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        allowedTenants: string[];
                        /** Format: date-time */
                        createdAt: string;
                        description: string | null;
                        /** @description RFC 1123 label: lowercase letters, digits and `-`, at most 63 characters */
                        id: string;
                        /** @description `default` and `system` */
                        reserved: boolean;
                        tags: string[];
                        /** Format: date-time */
                        updatedAt: string;
                    };
                };
            };
            /** @description Malformed request (e.g. a body that is not JSON) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description No or bad API token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token is not an instance admin, or the entity is reserved (`default`, `system`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid content: one entry per problem, with its JSON path (e.g. `subscriptions[1].reservedPercent`) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database or the queue is unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    WorkerQueuesController_delete: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description No or bad API token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The token is not an instance admin, or the entity is reserved (`default`, `system`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unknown worker queue, worker group, subscription or token */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict: the entity is still in use, or a token of that name exists */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
}
