import { test as base, expect } from "@playwright/test";
import { Seeder } from "./support/seed";

/** `seed`: one Seeder per worker, connected to the e2e server's database. */
export const test = base.extend<object, { seed: Seeder }>({
  seed: [
    async ({}, use) => {
      const seeder = await Seeder.open();
      await use(seeder);
      await seeder.close();
    },
    { scope: "worker" },
  ],
});

export { expect };
