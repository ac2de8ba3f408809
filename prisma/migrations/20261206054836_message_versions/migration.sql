-- CreateTable
CREATE TABLE "MessageVersion" (
    "id" TEXT NOT NULL,
    "sessionId" TEXT NOT NULL,
    "baseId" TEXT,
    "firstId" TEXT NOT NULL,
    "preview" TEXT NOT NULL,
    "messages" JSONB NOT NULL,
    "snapshot" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "MessageVersion_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "MessageVersion_sessionId_baseId_idx" ON "MessageVersion"("sessionId", "baseId");

-- AddForeignKey
ALTER TABLE "MessageVersion" ADD CONSTRAINT "MessageVersion_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "Session"("id") ON DELETE CASCADE ON UPDATE CASCADE;
