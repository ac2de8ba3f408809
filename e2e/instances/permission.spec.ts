import { Chat } from "../pages/chat";
import { PermissionPrompt } from "../pages/permission-prompt";
import { SessionPage } from "../pages/session-page";
import { expect, test } from "./fixtures";
import { callTool, instanceOf, reply } from "./support/provider";

test("a permission asked on A is answered from a browser on B, and A's runner goes on with it", async ({ cluster, browser }) => {
  cluster.writeProjectFile(".env", "ANSWER=42\n");
  const { id, tag } = await cluster.session("a", "Asked on A");
  cluster.model.script(tag, callTool("read", { filePath: ".env" }), reply.text("The answer is in .env."));
  const context = await cluster.browser(browser, "b");
  const page = await context.newPage();
  const view = new SessionPage(page);
  await view.goto(id);

  expect((await cluster.api("a").prompt(id, `read .env ${tag}`)).status).toBe(200);
  const asks = new PermissionPrompt(page);
  await expect(asks.request(".env")).toBeVisible();
  await asks.allowOnce(".env");
  await expect(view.tool("completed")).toBeVisible();
  await expect(page.getByText("The answer is in .env.")).toBeVisible();
  await new Chat(page).waitIdle();

  // The runner stayed on A: both model calls came from it, the second with the file it read.
  const requests = cluster.model.requests(tag);
  expect(requests.map(instanceOf)).toEqual(["a", "a"]);
  expect(JSON.stringify(requests[1]?.body.messages)).toContain("ANSWER=42");
  const question = await cluster.db.permissionRequest.findFirstOrThrow({ where: { sessionId: id } });
  expect(question.status).toBe("once");
  await context.close();
});
