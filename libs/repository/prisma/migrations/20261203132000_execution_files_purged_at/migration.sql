-- AlterTable
ALTER TABLE "executions" ADD COLUMN     "files_purged_at" TIMESTAMPTZ(3);

-- CreateIndex
CREATE INDEX "executions_ended_at_idx" ON "executions"("ended_at");
