-- AlterTable
ALTER TABLE "Project" ADD COLUMN     "credential" TEXT,
ADD COLUMN     "defaultBranch" TEXT,
ADD COLUMN     "gitUrl" TEXT,
ADD COLUMN     "gitUser" TEXT,
ADD COLUMN     "pullRequestUrl" TEXT,
ADD COLUMN     "source" TEXT NOT NULL DEFAULT 'directory';

-- CreateTable
CREATE TABLE "TeamSecret" (
    "id" TEXT NOT NULL,
    "teamId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "sealed" BYTEA NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedById" TEXT,

    CONSTRAINT "TeamSecret_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "TeamSecret_teamId_name_key" ON "TeamSecret"("teamId", "name");

-- AddForeignKey
ALTER TABLE "TeamSecret" ADD CONSTRAINT "TeamSecret_teamId_fkey" FOREIGN KEY ("teamId") REFERENCES "Team"("id") ON DELETE CASCADE ON UPDATE CASCADE;
