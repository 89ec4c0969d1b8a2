-- AlterTable
ALTER TABLE "logs" ADD COLUMN     "line_key" TEXT;

-- CreateIndex
CREATE UNIQUE INDEX "logs_tenant_id_execution_id_line_key_key" ON "logs"("tenant_id", "execution_id", "line_key");
