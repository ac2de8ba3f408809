-- DropIndex
DROP INDEX "Session_dashboard_updated_idx";

-- CreateIndex
CREATE INDEX "Session_dashboard_updated_idx" ON "Session"("teamId", "timeUpdated" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "Session_dashboard_totals_idx" ON "Session"("teamId", "timeArchived", "parentId", "cost", "tokensInput", "tokensOutput", "tokensReasoning", "tokensCacheRead", "tokensCacheWrite", "summaryAdditions", "summaryDeletions");
