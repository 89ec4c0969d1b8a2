-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateEnum
CREATE TYPE "execution_state" AS ENUM ('CREATED', 'QUEUED', 'RUNNING', 'PAUSED', 'RESTARTED', 'KILLING', 'RETRYING', 'RETRIED', 'SUCCESS', 'WARNING', 'FAILED', 'KILLED', 'CANCELLED');

-- CreateEnum
CREATE TYPE "task_run_state" AS ENUM ('CREATED', 'SUBMITTED', 'RESUBMITTED', 'QUEUED', 'RUNNING', 'PAUSED', 'RESTARTED', 'KILLING', 'RETRYING', 'RETRIED', 'SUCCESS', 'WARNING', 'FAILED', 'KILLED', 'CANCELLED', 'SKIPPED');

-- CreateEnum
CREATE TYPE "subscription_mode" AS ENUM ('STRICT', 'ELASTIC');

-- CreateEnum
CREATE TYPE "service_role" AS ENUM ('API', 'EXECUTOR', 'CONTROLLER', 'WORKER', 'SCHEDULER', 'INDEXER', 'STANDALONE');

-- CreateEnum
CREATE TYPE "service_instance_state" AS ENUM ('CREATED', 'RUNNING', 'MAINTENANCE', 'DISCONNECTED', 'TERMINATING', 'TERMINATED', 'NOT_RUNNING');

-- CreateEnum
CREATE TYPE "log_level" AS ENUM ('TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR');

-- CreateEnum
CREATE TYPE "metric_type" AS ENUM ('COUNTER', 'TIMER');

-- CreateEnum
CREATE TYPE "api_token_role" AS ENUM ('ADMIN', 'DEVELOPER', 'VIEWER');

-- CreateTable
CREATE TABLE "tenants" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "worker_selector" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "tenants_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "namespaces" (
    "tenant_id" TEXT NOT NULL,
    "namespace" TEXT NOT NULL,
    "worker_selector" JSONB,
    "variables" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "namespaces_pkey" PRIMARY KEY ("tenant_id","namespace")
);

-- CreateTable
CREATE TABLE "flows" (
    "id" UUID NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "namespace" TEXT NOT NULL,
    "flow_id" TEXT NOT NULL,
    "revision" INTEGER NOT NULL,
    "source" TEXT NOT NULL,
    "definition" JSONB NOT NULL,
    "deleted" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "flows_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "triggers" (
    "id" UUID NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "namespace" TEXT NOT NULL,
    "flow_id" TEXT NOT NULL,
    "flow_revision" INTEGER NOT NULL,
    "trigger_id" TEXT NOT NULL,
    "disabled" BOOLEAN NOT NULL DEFAULT false,
    "next_evaluation_at" TIMESTAMPTZ(3),
    "last_evaluated_at" TIMESTAMPTZ(3),
    "locked_by" TEXT,
    "locked_until" TIMESTAMPTZ(3),
    "evaluation_state" JSONB,
    "current_execution_id" TEXT,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "triggers_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "executions" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "namespace" TEXT NOT NULL,
    "flow_id" TEXT NOT NULL,
    "flow_revision" INTEGER NOT NULL,
    "state" "execution_state" NOT NULL,
    "state_histories" JSONB NOT NULL,
    "inputs" JSONB,
    "outputs" JSONB,
    "labels" JSONB,
    "trigger" JSONB,
    "version" INTEGER NOT NULL DEFAULT 0,
    "parent_execution_id" TEXT,
    "parent_task_run_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "started_at" TIMESTAMPTZ(3),
    "ended_at" TIMESTAMPTZ(3),

    CONSTRAINT "executions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "task_runs" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "execution_id" TEXT NOT NULL,
    "task_id" TEXT NOT NULL,
    "parent_task_run_id" TEXT,
    "value" TEXT,
    "state" "task_run_state" NOT NULL,
    "state_histories" JSONB NOT NULL,
    "outputs" JSONB,
    "worker_queue_id" TEXT,
    "worker_selector" JSONB,
    "dispatch_reason" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "task_runs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "task_run_attempts" (
    "id" UUID NOT NULL,
    "task_run_id" TEXT NOT NULL,
    "attempt" INTEGER NOT NULL,
    "worker_id" TEXT,
    "worker_queue_id" TEXT,
    "state" "task_run_state" NOT NULL,
    "outputs" JSONB,
    "error" JSONB,
    "started_at" TIMESTAMPTZ(3),
    "ended_at" TIMESTAMPTZ(3),

    CONSTRAINT "task_run_attempts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "logs" (
    "id" BIGSERIAL NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "namespace" TEXT NOT NULL,
    "flow_id" TEXT NOT NULL,
    "execution_id" TEXT NOT NULL,
    "task_run_id" TEXT,
    "attempt" INTEGER,
    "level" "log_level" NOT NULL,
    "timestamp" TIMESTAMPTZ(3) NOT NULL,
    "message" TEXT NOT NULL,

    CONSTRAINT "logs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "metrics" (
    "id" BIGSERIAL NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "namespace" TEXT NOT NULL,
    "flow_id" TEXT NOT NULL,
    "execution_id" TEXT,
    "task_run_id" TEXT,
    "name" TEXT NOT NULL,
    "type" "metric_type" NOT NULL,
    "value" DOUBLE PRECISION NOT NULL,
    "tags" JSONB,
    "timestamp" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "metrics_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "worker_queues" (
    "id" TEXT NOT NULL,
    "tags" TEXT[],
    "allowed_tenants" TEXT[],
    "description" TEXT,
    "reserved" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "worker_queues_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "worker_groups" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "reserved" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "worker_groups_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "worker_group_subscriptions" (
    "id" UUID NOT NULL,
    "worker_group_id" TEXT NOT NULL,
    "worker_queue_id" TEXT NOT NULL,
    "reserved_percent" INTEGER,
    "mode" "subscription_mode" NOT NULL DEFAULT 'STRICT',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "worker_group_subscriptions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "registration_tokens" (
    "id" UUID NOT NULL,
    "worker_group_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "registration_tokens_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "workers" (
    "id" TEXT NOT NULL,
    "worker_group_id" TEXT NOT NULL,
    "registration_token_id" UUID,
    "name" TEXT,
    "hostname" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_seen_at" TIMESTAMPTZ(3),

    CONSTRAINT "workers_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "refresh_tokens" (
    "id" UUID NOT NULL,
    "family_id" UUID NOT NULL,
    "token_hash" TEXT NOT NULL,
    "worker_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "used_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "refresh_tokens_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "service_instances" (
    "id" TEXT NOT NULL,
    "role" "service_role" NOT NULL,
    "host" TEXT NOT NULL,
    "state" "service_instance_state" NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "heartbeat_at" TIMESTAMPTZ(3) NOT NULL,
    "state_changed_at" TIMESTAMPTZ(3) NOT NULL,
    "metadata" JSONB,

    CONSTRAINT "service_instances_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "running_jobs" (
    "id" UUID NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "execution_id" TEXT NOT NULL,
    "task_run_id" TEXT NOT NULL,
    "attempt" INTEGER NOT NULL,
    "worker_queue_id" TEXT NOT NULL,
    "worker_id" TEXT NOT NULL,
    "controller_instance_id" TEXT NOT NULL,
    "job" JSONB NOT NULL,
    "dispatched_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "running_jobs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "cluster_locks" (
    "name" TEXT NOT NULL,
    "holder" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "cluster_locks_pkey" PRIMARY KEY ("name")
);

-- CreateTable
CREATE TABLE "audit_log" (
    "id" BIGSERIAL NOT NULL,
    "tenant_id" TEXT,
    "actor_type" TEXT NOT NULL,
    "actor_id" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "resource_type" TEXT NOT NULL,
    "resource_id" TEXT NOT NULL,
    "details" JSONB,
    "occurred_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "audit_log_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_tokens" (
    "id" UUID NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "role" "api_token_role" NOT NULL,
    "instance_admin" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3),
    "last_used_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "api_tokens_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "flows_tenant_id_namespace_idx" ON "flows"("tenant_id", "namespace");

-- CreateIndex
CREATE UNIQUE INDEX "flows_tenant_id_namespace_flow_id_revision_key" ON "flows"("tenant_id", "namespace", "flow_id", "revision");

-- CreateIndex
CREATE INDEX "triggers_next_evaluation_at_idx" ON "triggers"("next_evaluation_at");

-- CreateIndex
CREATE UNIQUE INDEX "triggers_tenant_id_namespace_flow_id_trigger_id_key" ON "triggers"("tenant_id", "namespace", "flow_id", "trigger_id");

-- CreateIndex
CREATE INDEX "executions_tenant_id_namespace_flow_id_created_at_idx" ON "executions"("tenant_id", "namespace", "flow_id", "created_at");

-- CreateIndex
CREATE INDEX "executions_tenant_id_state_idx" ON "executions"("tenant_id", "state");

-- CreateIndex
CREATE INDEX "executions_tenant_id_created_at_idx" ON "executions"("tenant_id", "created_at");

-- CreateIndex
CREATE INDEX "executions_parent_execution_id_idx" ON "executions"("parent_execution_id");

-- CreateIndex
CREATE INDEX "task_runs_execution_id_idx" ON "task_runs"("execution_id");

-- CreateIndex
CREATE INDEX "task_runs_parent_task_run_id_idx" ON "task_runs"("parent_task_run_id");

-- CreateIndex
CREATE UNIQUE INDEX "task_run_attempts_task_run_id_attempt_key" ON "task_run_attempts"("task_run_id", "attempt");

-- CreateIndex
CREATE INDEX "logs_execution_id_timestamp_idx" ON "logs"("execution_id", "timestamp");

-- CreateIndex
CREATE INDEX "logs_tenant_id_timestamp_idx" ON "logs"("tenant_id", "timestamp");

-- CreateIndex
CREATE INDEX "metrics_execution_id_idx" ON "metrics"("execution_id");

-- CreateIndex
CREATE INDEX "metrics_tenant_id_name_timestamp_idx" ON "metrics"("tenant_id", "name", "timestamp");

-- CreateIndex
CREATE INDEX "worker_group_subscriptions_worker_queue_id_idx" ON "worker_group_subscriptions"("worker_queue_id");

-- CreateIndex
CREATE UNIQUE INDEX "worker_group_subscriptions_worker_group_id_worker_queue_id_key" ON "worker_group_subscriptions"("worker_group_id", "worker_queue_id");

-- CreateIndex
CREATE UNIQUE INDEX "registration_tokens_token_hash_key" ON "registration_tokens"("token_hash");

-- CreateIndex
CREATE UNIQUE INDEX "registration_tokens_worker_group_id_name_key" ON "registration_tokens"("worker_group_id", "name");

-- CreateIndex
CREATE INDEX "workers_worker_group_id_idx" ON "workers"("worker_group_id");

-- CreateIndex
CREATE UNIQUE INDEX "refresh_tokens_token_hash_key" ON "refresh_tokens"("token_hash");

-- CreateIndex
CREATE INDEX "refresh_tokens_family_id_idx" ON "refresh_tokens"("family_id");

-- CreateIndex
CREATE INDEX "refresh_tokens_worker_id_idx" ON "refresh_tokens"("worker_id");

-- CreateIndex
CREATE INDEX "service_instances_state_heartbeat_at_idx" ON "service_instances"("state", "heartbeat_at");

-- CreateIndex
CREATE INDEX "running_jobs_controller_instance_id_idx" ON "running_jobs"("controller_instance_id");

-- CreateIndex
CREATE INDEX "running_jobs_worker_id_idx" ON "running_jobs"("worker_id");

-- CreateIndex
CREATE UNIQUE INDEX "running_jobs_task_run_id_attempt_key" ON "running_jobs"("task_run_id", "attempt");

-- CreateIndex
CREATE INDEX "audit_log_tenant_id_occurred_at_idx" ON "audit_log"("tenant_id", "occurred_at");

-- CreateIndex
CREATE INDEX "audit_log_resource_type_resource_id_idx" ON "audit_log"("resource_type", "resource_id");

-- CreateIndex
CREATE UNIQUE INDEX "api_tokens_token_hash_key" ON "api_tokens"("token_hash");

-- CreateIndex
CREATE UNIQUE INDEX "api_tokens_tenant_id_name_key" ON "api_tokens"("tenant_id", "name");

-- AddForeignKey
ALTER TABLE "executions" ADD CONSTRAINT "executions_parent_execution_id_fkey" FOREIGN KEY ("parent_execution_id") REFERENCES "executions"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "task_runs" ADD CONSTRAINT "task_runs_execution_id_fkey" FOREIGN KEY ("execution_id") REFERENCES "executions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "task_runs" ADD CONSTRAINT "task_runs_parent_task_run_id_fkey" FOREIGN KEY ("parent_task_run_id") REFERENCES "task_runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "task_run_attempts" ADD CONSTRAINT "task_run_attempts_task_run_id_fkey" FOREIGN KEY ("task_run_id") REFERENCES "task_runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "worker_group_subscriptions" ADD CONSTRAINT "worker_group_subscriptions_worker_group_id_fkey" FOREIGN KEY ("worker_group_id") REFERENCES "worker_groups"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "worker_group_subscriptions" ADD CONSTRAINT "worker_group_subscriptions_worker_queue_id_fkey" FOREIGN KEY ("worker_queue_id") REFERENCES "worker_queues"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "registration_tokens" ADD CONSTRAINT "registration_tokens_worker_group_id_fkey" FOREIGN KEY ("worker_group_id") REFERENCES "worker_groups"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "workers" ADD CONSTRAINT "workers_worker_group_id_fkey" FOREIGN KEY ("worker_group_id") REFERENCES "worker_groups"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "workers" ADD CONSTRAINT "workers_registration_token_id_fkey" FOREIGN KEY ("registration_token_id") REFERENCES "registration_tokens"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "refresh_tokens" ADD CONSTRAINT "refresh_tokens_worker_id_fkey" FOREIGN KEY ("worker_id") REFERENCES "workers"("id") ON DELETE CASCADE ON UPDATE CASCADE;
