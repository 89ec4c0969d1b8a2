-- CreateTable
CREATE TABLE "flow_triggers" (
    "tenant_id" TEXT NOT NULL,
    "namespace" TEXT NOT NULL,
    "flow_id" TEXT NOT NULL,
    "trigger_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "schedule_spec" TEXT,
    "next_date" TIMESTAMPTZ(3),
    "pending" BOOLEAN NOT NULL DEFAULT false,
    "last_date" TIMESTAMPTZ(3),
    "last_execution_id" TEXT,
    "lock_holder" TEXT,
    "lock_expires_at" TIMESTAMPTZ(3),
    "disabled" BOOLEAN NOT NULL DEFAULT false,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "flow_triggers_pkey" PRIMARY KEY ("tenant_id","namespace","flow_id","trigger_id")
);

-- CreateIndex
CREATE INDEX "flow_triggers_next_date_idx" ON "flow_triggers"("next_date");
