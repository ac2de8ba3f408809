-- CreateTable
CREATE TABLE "PermissionRequest" (
    "id" TEXT NOT NULL,
    "teamId" TEXT NOT NULL,
    "sessionId" TEXT NOT NULL,
    "projectId" TEXT NOT NULL,
    "agent" TEXT NOT NULL,
    "permission" TEXT NOT NULL,
    "patterns" JSONB NOT NULL,
    "always" JSONB NOT NULL,
    "metadata" JSONB NOT NULL,
    "tool" JSONB,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "feedback" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "repliedAt" TIMESTAMPTZ(3),

    CONSTRAINT "PermissionRequest_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "PermissionRequest_sessionId_status_idx" ON "PermissionRequest"("sessionId", "status");

-- CreateIndex
CREATE INDEX "PermissionRequest_teamId_status_idx" ON "PermissionRequest"("teamId", "status");

-- AddForeignKey
ALTER TABLE "PermissionRequest" ADD CONSTRAINT "PermissionRequest_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "Session"("id") ON DELETE CASCADE ON UPDATE CASCADE;
