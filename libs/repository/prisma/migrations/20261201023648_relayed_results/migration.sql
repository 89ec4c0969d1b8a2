-- CreateTable
CREATE TABLE "relayed_results" (
    "task_run_id" TEXT NOT NULL,
    "attempt" INTEGER NOT NULL,
    "relayed_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "relayed_results_pkey" PRIMARY KEY ("task_run_id","attempt")
);

-- CreateIndex
CREATE INDEX "relayed_results_relayed_at_idx" ON "relayed_results"("relayed_at");
