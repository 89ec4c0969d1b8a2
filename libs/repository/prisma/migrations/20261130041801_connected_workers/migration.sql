-- CreateTable
CREATE TABLE "connected_workers" (
    "worker_id" TEXT NOT NULL,
    "worker_group_id" TEXT NOT NULL,
    "worker_name" TEXT NOT NULL,
    "controller_instance_id" TEXT NOT NULL,
    "registration_token_id" UUID,
    "slots" INTEGER NOT NULL,
    "draining" BOOLEAN NOT NULL DEFAULT false,
    "queue_ids" TEXT[],
    "capacity" JSONB,
    "labels" JSONB,
    "connected_at" TIMESTAMPTZ(3) NOT NULL,
    "heartbeat_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "connected_workers_pkey" PRIMARY KEY ("worker_id")
);

-- CreateIndex
CREATE INDEX "connected_workers_worker_group_id_idx" ON "connected_workers"("worker_group_id");

-- CreateIndex
CREATE INDEX "connected_workers_controller_instance_id_idx" ON "connected_workers"("controller_instance_id");

-- CreateIndex
CREATE INDEX "connected_workers_heartbeat_at_idx" ON "connected_workers"("heartbeat_at");
