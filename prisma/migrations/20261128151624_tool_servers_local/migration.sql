-- AlterTable
ALTER TABLE "ToolServer" ADD COLUMN     "network" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "writable" BOOLEAN NOT NULL DEFAULT false;
