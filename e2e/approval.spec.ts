/**
 * The approval flow in the browser against the real server, a fake OpenAI-compatible model
 * (started here, added to the server's models.json) scripting a sub-agent's `run_command` calls:
 * the card on the conversation page shows the agent, the command and the folder; approved, the
 * command runs; in the agent's drawer a second one is approved and its output streams live; a
 * third is denied with a reason, which the agent receives as its tool result.
 */
import fs from "node:fs";
import path from "node:path";
import { expect, test, uniqueSuffix } from "./fixtures";
import { ConversationPage } from "./pages/conversation-page";
import { fakeText, fakeToolCalls, startFakeOpenAI, type FakeOpenAI, type FakeRequestBody, type Script } from "../test/helpers/fake-openai";

const JSON_HEADERS = { "content-type": "application/json" };
const suffix = uniqueSuffix();
const MODEL_KEY = `e2e-approval-${suffix}`;
const ROLE_ID = `approver-${suffix}`;
const CALLS = [
  { id: "e2e_first", command: "echo first-approved" },
  { id: "e2e_live", command: "echo live-line && sleep 4 && echo done-line" },
  { id: "e2e_denied", command: "rm -rf build" },
];

type Msg = { role: string; content?: unknown; tool_call_id?: string };

function handler(body: FakeRequestBody): Script {
  const messages = (body.messages ?? []) as Msg[];
  const isLeader = ((body.tools ?? []) as Array<{ function: { name: string } }>).some((t) => t.function.name === "create_sub_agent");
  if (isLeader) {
    if (!messages.some((m) => m.role === "tool")) return fakeToolCalls([{ name: "create_sub_agent", arguments: { role_id: ROLE_ID, task: "Run the project's commands." } }]);
    return fakeText("Noted.");
  }
  const done = messages.filter((m) => m.role === "tool").length;
  const call = CALLS[done];
  if (call) return fakeToolCalls([{ id: call.id, name: "run_command", arguments: { command: call.command } }]);
  return fakeToolCalls([{ name: "report_to_leader", arguments: { summary: "Ran what I was allowed to." } }]);
}

let fake: FakeOpenAI;

test.beforeAll(async () => {
  fake = await startFakeOpenAI({ script: handler });
  const home = process.env.E2E_ASTRION_HOME!;
  const file = path.join(home, "models.json");
  const models = JSON.parse(fs.readFileSync(file, "utf8")) as { models: Record<string, unknown> };
  models.models[MODEL_KEY] = { label: "Fake (approval spec)", base_url: fake.url, model: "fake-model" };
  fs.writeFileSync(file, JSON.stringify(models, null, 2));
  fs.writeFileSync(path.join(home, "agents", `${ROLE_ID}.md`), `---\nname: Approver ${suffix}\ndescription: Runs commands for the approval spec\npermissions: [read, execute]\n---\nYou run commands.\n`);
});

test.afterAll(async () => {
  await fake?.close();
});

test("a command waits for approval: approve on the page, approve with live output in the drawer, deny with a reason", async ({ page, request, projectDir }) => {
  test.setTimeout(120_000);
  const conversation = new ConversationPage(page);
  const created = await request.post("/api/conversations", { headers: JSON_HEADERS, data: { title: `Approval ${suffix}`, project_path: projectDir, model_key: MODEL_KEY } });
  expect(created.status()).toBe(201);
  const id = (await created.json()).conversation.id as string;
  await page.goto(`/conversations/${id}`);
  await expect(page.getByTestId("connection-state")).toHaveAttribute("data-state", "open");
  await conversation.send("Run the commands");

  // The card on the page: who asks, what, where.
  const card = page.getByTestId("approval-card").filter({ has: page.getByText("echo first-approved") });
  await expect(card).toBeVisible({ timeout: 30_000 });
  await expect(card).toContainText(`Approver ${suffix}_`);
  await expect(card.getByTestId("approval-command")).toHaveText("echo first-approved");
  await expect(card.getByTestId("approval-folder")).toContainText(fs.realpathSync(projectDir));
  const agentId = (await card.getAttribute("data-agent-id")) ?? "";
  await expect(conversation.agent(agentId)).toHaveAttribute("data-status", "waiting");
  await card.getByTestId("approval-approve").click();
  await expect(card).toBeHidden();

  // In the drawer: the next command's card, approved, streams its output while it runs.
  await conversation.agent(agentId).click();
  const drawer = conversation.drawer;
  const liveCard = drawer.getByTestId("approval-card").filter({ has: page.getByText("echo live-line") });
  await expect(liveCard).toBeVisible({ timeout: 30_000 });
  await liveCard.getByTestId("approval-approve").click();
  await expect(drawer.getByTestId("live-command-output")).toContainText("live-line", { timeout: 10_000 });
  await expect(drawer.getByTestId("live-command-output")).toBeHidden({ timeout: 20_000 });

  // The third is denied with a reason.
  const deniedCard = drawer.getByTestId("approval-card").filter({ has: page.getByText("rm -rf build") });
  await expect(deniedCard).toBeVisible({ timeout: 30_000 });
  await deniedCard.getByTestId("approval-deny").click();
  await deniedCard.getByTestId("approval-reason").fill("not in this project");
  await deniedCard.getByTestId("approval-deny-confirm").click();
  await expect(deniedCard).toBeHidden();

  // What the agent received, and that it went on to report.
  await expect
    .poll(async () => {
      const detail = await (await request.get(`/api/conversations/${id}/agents/${agentId}`)).json();
      const results = Object.fromEntries((detail.messages as Msg[]).filter((m) => m.role === "tool").map((m) => [m.tool_call_id, String(m.content)]));
      return [results.e2e_first?.includes('"output":"first-approved\\n"'), results.e2e_live?.includes("done-line"), results.e2e_denied?.includes("denied by User: not in this project"), detail.agent.metadata.reported === true];
    }, { timeout: 30_000 })
    .toEqual([true, true, true, true]);
});

test("the role card shows the approval policy and the execute permission written in the role file", async ({ roleLibrary, astrionHome }) => {
  const id = `policy-${suffix}`;
  fs.writeFileSync(
    path.join(astrionHome, "agents", `${id}.md`),
    `---\nname: Policy ${suffix}\ndescription: A role with an approval policy\npermissions: [read, execute]\ntool_policy: { write_file: allow, run_command: ask }\nallowed_commands: ["npm test", "npm run lint*"]\n---\nYou help.\n`,
  );
  await roleLibrary.goto();
  const card = roleLibrary.card(id);
  await expect(card.getByTestId("role-policy-tools")).toHaveText("write_file: allow · run_command: ask first");
  await expect(card.getByTestId("role-policy-commands")).toContainText("npm test · npm run lint*");
  await expect(card).toContainText("read · execute");
});

test("the role editor warns about an allow-list entry that trusts agent-written code", async ({ page }) => {
  const id = `trusting-${suffix}`;
  const home = process.env.E2E_ASTRION_HOME!;
  fs.writeFileSync(
    path.join(home, "agents", `${id}.md`),
    `---\nname: Trusting ${suffix}\ndescription: Builds without asking\npermissions: [read, write, execute]\nallowed_commands:\n  - npm test\n  - { pattern: "npm run build", trust_agent_code: true }\n---\nYou build.\n`,
  );
  await page.goto(`/roles/${id}`);
  const policy = page.getByTestId("role-policy");
  await expect(policy.getByTestId("role-policy-commands")).toContainText("npm test");
  await expect(policy.getByTestId("role-policy-commands")).not.toContainText("npm run build");
  const trusted = policy.getByTestId("role-policy-trusted");
  await expect(trusted).toContainText("npm run build");
  await expect(trusted.getByTestId("role-policy-trusted-warning")).toContainText("any program");
});
