-- AlterTable
ALTER TABLE "executions" ADD COLUMN     "error" TEXT;

-- CreateTable
CREATE TABLE "execution_processing_marks" (
    "tenant_id" TEXT NOT NULL,
    "execution_id" TEXT NOT NULL,
    "message_id" TEXT,
    "message_type" TEXT,
    "processing_since" TIMESTAMPTZ(3),
    "crashes" INTEGER NOT NULL DEFAULT 0,
    "last_crash_message_id" TEXT,
    "last_crash_message_type" TEXT,
    "last_crash_since" TIMESTAMPTZ(3),
    "quarantined_at" TIMESTAMPTZ(3),

    CONSTRAINT "execution_processing_marks_pkey" PRIMARY KEY ("tenant_id","execution_id")
);

-- CreateTable
CREATE TABLE "parked_executor_events" (
    "tenant_id" TEXT NOT NULL,
    "execution_id" TEXT NOT NULL,
    "message_id" TEXT NOT NULL,
    "message_type" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "parked_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "parked_executor_events_pkey" PRIMARY KEY ("tenant_id","execution_id","message_id")
);

-- CreateIndex
CREATE INDEX "parked_executor_events_parked_at_idx" ON "parked_executor_events"("parked_at");
