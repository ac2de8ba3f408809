import { describe, expect, it } from "vitest";
import { taskAnswer, taskOutput } from "./task-result";

describe("task results", () => {
  it("give the model the task_id and the answer, and people the answer only", () => {
    const answer = "## Found\n\n- `a.ts`\n- <task_result> quoted inside </task_result> too";
    const output = taskOutput("ses_1", answer);
    expect(output).toContain("task_id: ses_1");
    expect(taskAnswer(output)).toBe(answer);
  });

  it("leave an output without the protocol as it is", () => {
    expect(taskAnswer("plain text")).toBe("plain text");
    expect(taskAnswer("</task_result> before <task_result>")).toBe("</task_result> before <task_result>");
  });
});
