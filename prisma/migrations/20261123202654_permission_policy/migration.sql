-- AlterTable
ALTER TABLE "Team" ADD COLUMN     "permission" JSONB;

-- AlterTable
ALTER TABLE "Project" ADD COLUMN     "permission" JSONB;

-- AlterTable
ALTER TABLE "PermissionApproval" ADD COLUMN     "grantedById" TEXT;

-- AlterTable
ALTER TABLE "PermissionRequest" ADD COLUMN     "mustAsk" BOOLEAN NOT NULL DEFAULT false;

-- CreateIndex
CREATE INDEX "PermissionApproval_teamId_createdAt_idx" ON "PermissionApproval"("teamId", "createdAt");

-- AddForeignKey
ALTER TABLE "PermissionApproval" ADD CONSTRAINT "PermissionApproval_grantedById_fkey" FOREIGN KEY ("grantedById") REFERENCES "User"("id") ON DELETE SET NULL ON UPDATE CASCADE;
