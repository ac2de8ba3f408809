-- CreateExtension
CREATE EXTENSION IF NOT EXISTS "btree_gin";

-- CreateIndex
CREATE INDEX "Session_team_title_trgm_idx" ON "Session" USING GIN ("teamId" text_ops, "title" gin_trgm_ops);
