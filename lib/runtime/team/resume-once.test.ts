/**
 * A run object resumes once (TeamRun.resume): at a start the resume of every conversation and the
 * takeover scan may reach one run at once, as may a request that opens a run taken from another
 * instance. The second caller gets the first one's resume; nothing is done or recorded twice. A
 * new run object (a restart, an unarchive) resumes again.
 */
import path from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { TeamKit, teamEnvironment, timelineOf } from "@/test/support/team-kit";

const env = teamEnvironment();
// The refused resume is also logged; kept out of the test's output.
const logged = vi.spyOn(console, "error").mockImplementation(() => undefined);
afterAll(() => {
  logged.mockRestore();
  return env.close();
});

describe("a run's resume", () => {
  it("runs once per run object however many callers reach it at once, and again on a new one", async () => {
    // A project folder that is gone: each resume that runs records its refusal on the timeline.
    const kit = new TeamKit(env, () => ({ content: "unused" }), { project: path.join(env.project, "gone") });
    const first = kit.start();
    await Promise.all([first.run.resume(), first.run.resume(), first.run.resume()]);
    await first.run.resume();
    const refusals = (p: typeof first) => timelineOf(p, kit.convId).filter((r) => r.action === "resume" && r.status === "refused");
    await first.run.durable();
    expect(refusals(first)).toHaveLength(1);
    const second = kit.start();
    await second.run.resume();
    await second.run.durable();
    expect(refusals(second)).toHaveLength(2);
  });
});
