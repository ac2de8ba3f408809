-- AlterTable
ALTER TABLE "ToolServer" ADD COLUMN     "oauth" BOOLEAN NOT NULL DEFAULT false;
