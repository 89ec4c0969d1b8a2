-- CreateEnum
CREATE TYPE "worker_restart_strategy" AS ENUM ('NEVER', 'IMMEDIATELY', 'AFTER_TERMINATION_GRACE_PERIOD');

-- AlterTable
ALTER TABLE "worker_groups" ADD COLUMN     "restart_strategy" "worker_restart_strategy" NOT NULL DEFAULT 'AFTER_TERMINATION_GRACE_PERIOD';
