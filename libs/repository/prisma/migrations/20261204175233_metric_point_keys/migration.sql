-- AlterTable
ALTER TABLE "metrics" ADD COLUMN     "point_key" TEXT;

-- CreateIndex
CREATE UNIQUE INDEX "metrics_tenant_id_execution_id_point_key_key" ON "metrics"("tenant_id", "execution_id", "point_key");
