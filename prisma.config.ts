import { defineConfig } from "prisma/config";

// Prisma 7 reads no .env by itself. The CLI is used here only for `generate`;
// migrations are applied by scripts/db.ts through the WebAssembly schema engine
// (they stay interchangeable with `prisma migrate deploy`).
export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  datasource: { url: process.env.DATABASE_URL ?? "postgresql://localhost:5432/parley" },
});
