-- AlterTable
ALTER TABLE "task_runs" ADD COLUMN     "error" TEXT;
