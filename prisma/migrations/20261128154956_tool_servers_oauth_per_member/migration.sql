-- AlterTable
ALTER TABLE "ToolServer" ADD COLUMN     "oauthPerMember" BOOLEAN NOT NULL DEFAULT false;
