-- CreateTable
CREATE TABLE "TeamProvider" (
    "id" TEXT NOT NULL,
    "teamId" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "secretName" TEXT,
    "baseUrl" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedById" TEXT,

    CONSTRAINT "TeamProvider_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "TeamModelSettings" (
    "teamId" TEXT NOT NULL,
    "enabled" JSONB NOT NULL DEFAULT '[]',
    "defaultModel" TEXT,
    "smallModel" TEXT,
    "agentModels" JSONB NOT NULL DEFAULT '{}',
    "monthlyLimit" DECIMAL(24,12),
    "memberLimit" DECIMAL(24,12),
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedById" TEXT,

    CONSTRAINT "TeamModelSettings_pkey" PRIMARY KEY ("teamId")
);

-- CreateTable
CREATE TABLE "Spend" (
    "id" BIGSERIAL NOT NULL,
    "teamId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "projectId" TEXT NOT NULL,
    "sessionId" TEXT NOT NULL,
    "cost" DECIMAL(24,12) NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "Spend_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "TeamProvider_teamId_provider_key" ON "TeamProvider"("teamId", "provider");

-- CreateIndex
CREATE INDEX "Spend_teamId_at_idx" ON "Spend"("teamId", "at");

-- CreateIndex
CREATE INDEX "Spend_teamId_userId_at_idx" ON "Spend"("teamId", "userId", "at");

-- AddForeignKey
ALTER TABLE "TeamProvider" ADD CONSTRAINT "TeamProvider_teamId_fkey" FOREIGN KEY ("teamId") REFERENCES "Team"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "TeamModelSettings" ADD CONSTRAINT "TeamModelSettings_teamId_fkey" FOREIGN KEY ("teamId") REFERENCES "Team"("id") ON DELETE CASCADE ON UPDATE CASCADE;
