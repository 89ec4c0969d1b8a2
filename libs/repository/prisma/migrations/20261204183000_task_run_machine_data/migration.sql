-- AlterTable
ALTER TABLE "task_runs" ADD COLUMN     "machine_data" JSONB;
