-- AlterTable
ALTER TABLE "executions" ADD COLUMN     "state_data" JSONB;

-- CreateTable
CREATE TABLE "execution_timers" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "execution_id" TEXT NOT NULL,
    "task_run_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "attempt" INTEGER NOT NULL,
    "due_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "execution_timers_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "execution_timers_due_at_idx" ON "execution_timers"("due_at");

-- CreateIndex
CREATE INDEX "execution_timers_execution_id_idx" ON "execution_timers"("execution_id");

-- AddForeignKey
ALTER TABLE "execution_timers" ADD CONSTRAINT "execution_timers_execution_id_fkey" FOREIGN KEY ("execution_id") REFERENCES "executions"("id") ON DELETE CASCADE ON UPDATE CASCADE;
