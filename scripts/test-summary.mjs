// Prints one line totalling the unit/integration (Vitest), end-to-end and two-instance
// (Playwright) results written to reports/ by `npm test`, why tests were skipped, and —
// for each failed end-to-end test — the page as it was when it failed (Playwright's error
// context), since CI keeps no artifacts.
import { existsSync, readFileSync } from "node:fs";

let passed = 0;
let failed = 0;
let skipped = 0;
let flaky = 0;
const contexts = [];
/** Why tests were skipped (e.g. no PostgreSQL other than the embedded one), each reason once. */
const skipReasons = new Set();

/** Every failed result's error-context attachment, with the test's title. */
function collect(suite, titles) {
  for (const child of suite.suites ?? []) collect(child, [...titles, child.title]);
  for (const spec of suite.specs ?? []) {
    for (const test of spec.tests ?? []) {
      for (const annotation of test.annotations ?? []) {
        if (annotation.type === "skip" && annotation.description) skipReasons.add(annotation.description);
      }
      for (const result of test.results ?? []) {
        if (result.status === "passed" || result.status === "skipped") continue;
        for (const attachment of result.attachments ?? []) {
          if (attachment.name === "error-context" && attachment.path && existsSync(attachment.path)) {
            contexts.push({ title: [...titles, spec.title].filter(Boolean).join(" › "), text: readFileSync(attachment.path, "utf8") });
          }
        }
      }
    }
  }
}

if (existsSync("reports/vitest.json")) {
  const v = JSON.parse(readFileSync("reports/vitest.json", "utf8"));
  passed += v.numPassedTests ?? 0;
  failed += v.numFailedTests ?? 0;
  skipped += (v.numPendingTests ?? 0) + (v.numTodoTests ?? 0);
}
// The end-to-end suite and the two-instance suite (playwright.instances.config.ts).
for (const report of ["reports/playwright.json", "reports/playwright-instances.json"]) {
  if (!existsSync(report)) continue;
  const p = JSON.parse(readFileSync(report, "utf8"));
  passed += (p.stats?.expected ?? 0) + (p.stats?.flaky ?? 0);
  flaky += p.stats?.flaky ?? 0;
  failed += p.stats?.unexpected ?? 0;
  skipped += p.stats?.skipped ?? 0;
  for (const suite of p.suites ?? []) collect(suite, [suite.title]);
}
for (const { title, text } of contexts) {
  // Only the page snapshot: the error and the test source are printed by the reporter.
  const start = text.indexOf("# Page snapshot");
  if (start < 0) continue;
  const lines = text.slice(start).split("\n");
  console.log(`\n── page at the failure of: ${title} ──`);
  console.log(lines.slice(0, 200).join("\n"));
  if (lines.length > 200) console.log(`… ${lines.length - 200} more lines`);
}
for (const reason of skipReasons) console.log(`skipped: ${reason}`);
const retried = flaky ? ` (${flaky} of them only on a retry: see "flaky" above)` : "";
console.log(`Tests: ${passed} passed${retried}, ${failed} failed, ${skipped} skipped`);
