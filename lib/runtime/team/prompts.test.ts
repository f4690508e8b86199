import { countTokens as countRaw } from "gpt-tokenizer";
import { describe, expect, it } from "vitest";
import { countParagraphTokens, tokenizerStats } from "@/lib/context/tokens";
import { agentSystemPrompt } from "./prompts";

const ROLE = Array.from({ length: 12 }, (_, i) => `## Part ${i + 1}\n\nThe role's guidance, paragraph ${i + 1}: read the real files, cite them, and report what you found in plain words.`).join("\n\n");

function prompt(agentId: number, conversation: string) {
  return agentSystemPrompt({ displayName: `Researcher_${agentId}`, agentId, roleName: "Researcher", canWrite: false, conversationTitle: conversation, projectPath: `/tmp/project-${conversation}` }, ROLE);
}

describe("agentSystemPrompt", () => {
  it("names the agent, its conversation and its folder, and keeps the role's prompt whole", () => {
    const text = prompt(3, "survey");
    expect(text).toMatch(/^You are: Researcher_3 \(agent id 3, role Researcher\)\.$/m);
    expect(text).toContain("Conversation: survey");
    expect(text).toContain("Project folder: /tmp/project-survey. Use list_files, read_file, search_files on it");
    expect(text.endsWith(ROLE)).toBe(true);
  });

  it("keeps an agent's own lines in a paragraph of their own: a new agent of a role costs their tokenization, not the whole prompt's", () => {
    countParagraphTokens(prompt(1, "first"));
    const second = prompt(2, "second");
    const before = tokenizerStats.chars;
    expect(countParagraphTokens(second)).toBe(countRaw(second));
    const counted = tokenizerStats.chars - before;
    expect(counted).toBeGreaterThan(0);
    expect(counted).toBeLessThan(250);
    expect(second.length).toBeGreaterThan(5 * counted);
  });
});
