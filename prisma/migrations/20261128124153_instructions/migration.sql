-- AlterTable
ALTER TABLE "Team" ADD COLUMN     "instructions" TEXT;

-- AlterTable
ALTER TABLE "Project" ADD COLUMN     "instructions" TEXT;
