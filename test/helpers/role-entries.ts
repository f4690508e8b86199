/**
 * Role list entries shaped like the six role files shipped in `agents/`, for the governance
 * unit tests (the registry is built from data, so tests need no files).
 */
import type { RoleListEntry } from "@/lib/roles/schema";

/** One registered role as the library lists it. */
export function roleEntry(id: string, capabilities: string[], permissions: string[] = ["read"], model?: string): Extract<RoleListEntry, { kind: "role" }> {
  return {
    kind: "role",
    id,
    file: `${id}.md`,
    name: id.replace(/-/g, " "),
    description: `The ${id} role`,
    ...(model ? { model } : {}),
    capabilities,
    tools: [],
    permissions,
    access: { permissions: permissions.filter((p) => p === "read" || p === "write" || p === "execute"), project_tools: [] },
    warnings: [],
  };
}

/** The shipped roles' tags and permissions. */
export const SHIPPED_ROLES: RoleListEntry[] = [
  roleEntry("code-reviewer", ["code-review", "diff-analysis", "security-review", "python", "typescript", "testing"]),
  roleEntry("full-stack-engineer", ["implementation", "backend", "frontend", "api", "database", "typescript", "javascript", "python", "bug-fix", "refactoring"], ["read", "write", "execute"]),
  roleEntry("researcher", ["research", "analysis", "codebase-exploration", "documentation", "comparison", "summarization"]),
  roleEntry("technical-writer", ["documentation", "readme", "api-docs", "tutorials", "changelog", "markdown"], ["read", "write"]),
  roleEntry("test-engineer", ["testing", "unit-tests", "integration-tests", "e2e", "vitest", "jest", "pytest", "playwright", "regression"], ["read", "write", "execute"]),
  roleEntry("ui-operator", ["ui-design", "frontend", "css", "html", "react", "color-scheme", "responsive-design", "accessibility"], ["read", "write"]),
];
