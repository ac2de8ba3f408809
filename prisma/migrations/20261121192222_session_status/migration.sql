-- AlterTable
ALTER TABLE "Session" ADD COLUMN     "status" TEXT NOT NULL DEFAULT 'idle',
ADD COLUMN     "statusData" JSONB;

-- CreateIndex
CREATE INDEX "Session_status_idx" ON "Session"("status");
