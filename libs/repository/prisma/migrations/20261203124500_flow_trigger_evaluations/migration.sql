-- CreateTable
CREATE TABLE "flow_trigger_evaluations" (
    "tenant_id" TEXT NOT NULL,
    "namespace" TEXT NOT NULL,
    "flow_id" TEXT NOT NULL,
    "trigger_id" TEXT NOT NULL,
    "upstream_execution_id" TEXT NOT NULL,
    "execution_id" TEXT,
    "evaluated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "flow_trigger_evaluations_pkey" PRIMARY KEY ("tenant_id","namespace","flow_id","trigger_id","upstream_execution_id")
);

-- CreateTable
CREATE TABLE "flow_trigger_windows" (
    "tenant_id" TEXT NOT NULL,
    "namespace" TEXT NOT NULL,
    "flow_id" TEXT NOT NULL,
    "trigger_id" TEXT NOT NULL,
    "window_start" TIMESTAMPTZ(3) NOT NULL,
    "window_end" TIMESTAMPTZ(3) NOT NULL,
    "met" JSONB NOT NULL,

    CONSTRAINT "flow_trigger_windows_pkey" PRIMARY KEY ("tenant_id","namespace","flow_id","trigger_id")
);

-- CreateIndex
CREATE INDEX "flow_trigger_evaluations_evaluated_at_idx" ON "flow_trigger_evaluations"("evaluated_at");

-- CreateIndex
CREATE INDEX "flow_triggers_tenant_id_kind_idx" ON "flow_triggers"("tenant_id", "kind");
