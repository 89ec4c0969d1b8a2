-- CreateTable
CREATE TABLE "instance_maintenance" (
    "id" INTEGER NOT NULL DEFAULT 1,
    "enabled" BOOLEAN NOT NULL DEFAULT false,
    "entered_at" TIMESTAMPTZ(3),
    "entered_by" TEXT,
    "exited_at" TIMESTAMPTZ(3),
    "released_at" TIMESTAMPTZ(3),

    CONSTRAINT "instance_maintenance_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "instance_maintenance_one_row" CHECK ("id" = 1)
);
