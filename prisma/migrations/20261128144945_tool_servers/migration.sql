-- CreateTable
CREATE TABLE "ToolServer" (
    "id" TEXT NOT NULL,
    "teamId" TEXT NOT NULL,
    "scope" TEXT NOT NULL DEFAULT 'team',
    "projectId" TEXT,
    "name" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "url" TEXT,
    "command" JSONB,
    "headers" JSONB,
    "environment" JSONB,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "allow" JSONB,
    "timeoutMs" INTEGER,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedById" TEXT,

    CONSTRAINT "ToolServer_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ToolServerTools" (
    "teamId" TEXT NOT NULL,
    "server" TEXT NOT NULL,
    "tools" JSONB NOT NULL,
    "instructions" TEXT,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "ToolServerTools_pkey" PRIMARY KEY ("teamId","server")
);

-- CreateIndex
CREATE UNIQUE INDEX "ToolServer_teamId_scope_name_key" ON "ToolServer"("teamId", "scope", "name");

-- AddForeignKey
ALTER TABLE "ToolServer" ADD CONSTRAINT "ToolServer_teamId_fkey" FOREIGN KEY ("teamId") REFERENCES "Team"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ToolServer" ADD CONSTRAINT "ToolServer_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "Project"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ToolServerTools" ADD CONSTRAINT "ToolServerTools_teamId_fkey" FOREIGN KEY ("teamId") REFERENCES "Team"("id") ON DELETE CASCADE ON UPDATE CASCADE;
