import { it } from "vitest";
import { createOfflineModel } from "./index";
import { generateProject, repoProject } from "@/test/helpers/projects";
import { DEMO_PROJECT, runSubAgent } from "@/test/helpers/offline-kit";
const model = createOfflineModel("offline", { delayMs: 0 });
it("scratch", async () => {
  const which = process.env.SCRATCH ?? "gen";
  const files = which === "gen" ? generateProject(3_000, 3) : which === "demo" ? DEMO_PROJECT : repoProject(300);
  const goal = process.env.GOAL ?? "Review src/billing for error handling and list test ideas for the invoice path";
  const role = process.env.ROLE ?? "Code Reviewer";
  const run = await runSubAgent({ model, files, displayName: `${role}_1`, roleName: role, task: process.env.TASK ?? `Goal: "${goal}"\nAs the ${role}, look into the project folder.` });
  for (const r of run.results) console.log("STEP", r.content, JSON.stringify(r.tool_calls.map((c) => c.function.name + " " + c.function.arguments)).slice(0, 400), "NOTES", JSON.stringify(r.notes)?.slice(0, 300));
  console.log(run.report?.summary);
});
