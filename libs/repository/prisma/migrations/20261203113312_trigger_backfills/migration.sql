-- CreateTable
CREATE TABLE "trigger_backfills" (
    "tenant_id" TEXT NOT NULL,
    "namespace" TEXT NOT NULL,
    "flow_id" TEXT NOT NULL,
    "trigger_id" TEXT NOT NULL,
    "id" UUID NOT NULL,
    "start_date" TIMESTAMPTZ(3) NOT NULL,
    "end_date" TIMESTAMPTZ(3) NOT NULL,
    "cursor_date" TIMESTAMPTZ(3) NOT NULL,
    "paused" BOOLEAN NOT NULL DEFAULT false,
    "done" INTEGER NOT NULL DEFAULT 0,
    "due_at" TIMESTAMPTZ(3),
    "inputs" JSONB,
    "labels" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "trigger_backfills_pkey" PRIMARY KEY ("tenant_id","namespace","flow_id","trigger_id")
);

-- CreateIndex
CREATE INDEX "trigger_backfills_due_at_idx" ON "trigger_backfills"("due_at");

-- AddForeignKey
ALTER TABLE "trigger_backfills" ADD CONSTRAINT "trigger_backfills_tenant_id_namespace_flow_id_trigger_id_fkey" FOREIGN KEY ("tenant_id", "namespace", "flow_id", "trigger_id") REFERENCES "flow_triggers"("tenant_id", "namespace", "flow_id", "trigger_id") ON DELETE CASCADE ON UPDATE CASCADE;
