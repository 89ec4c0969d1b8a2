-- CreateTable
CREATE TABLE "dead_letters" (
    "id" UUID NOT NULL,
    "consumer_group" TEXT NOT NULL,
    "topic" TEXT NOT NULL,
    "partition" INTEGER NOT NULL,
    "offset" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "value" BYTEA NOT NULL,
    "headers" JSONB NOT NULL,
    "reason" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL,
    "tenant_id" TEXT,
    "execution_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "dead_letters_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "dead_letters_created_at_idx" ON "dead_letters"("created_at");

-- CreateIndex
CREATE UNIQUE INDEX "dead_letters_consumer_group_topic_partition_offset_key" ON "dead_letters"("consumer_group", "topic", "partition", "offset");
