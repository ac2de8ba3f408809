-- CreateExtension
CREATE EXTENSION IF NOT EXISTS "pg_trgm";

-- AlterTable
ALTER TABLE "Session" ADD COLUMN     "tokensTotal" BIGINT NOT NULL DEFAULT 0;

-- CreateIndex
CREATE INDEX "Session_dashboard_updated_idx" ON "Session"("teamId", "timeUpdated" DESC, "id" DESC, "timeArchived", "parentId", "projectId", "authorId", "status", "cost", "tokensTotal", "tokensInput", "tokensOutput", "tokensReasoning", "tokensCacheRead", "tokensCacheWrite", "summaryAdditions", "summaryDeletions");

-- CreateIndex
CREATE INDEX "Session_dashboard_cost_idx" ON "Session"("teamId", "cost" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "Session_dashboard_tokens_idx" ON "Session"("teamId", "tokensTotal" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "Session_title_trgm_idx" ON "Session" USING GIN ("title" gin_trgm_ops);

-- Backfill (written by hand, not by the schema diff): the total of the sessions that
-- already have tokens. From now on the processor adds to it with the other counters.
UPDATE "Session" SET "tokensTotal" = "tokensInput" + "tokensOutput" + "tokensReasoning" + "tokensCacheRead" + "tokensCacheWrite"
WHERE "tokensInput" + "tokensOutput" + "tokensReasoning" + "tokensCacheRead" + "tokensCacheWrite" <> 0;
