-- CreateTable
CREATE TABLE "controller_heartbeats" (
    "controller_instance_id" TEXT NOT NULL,
    "heartbeat_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "controller_heartbeats_pkey" PRIMARY KEY ("controller_instance_id")
);

-- CreateIndex
CREATE INDEX "controller_heartbeats_heartbeat_at_idx" ON "controller_heartbeats"("heartbeat_at");
