-- AlterTable
ALTER TABLE "api_tokens" ADD COLUMN     "namespace" TEXT;
