import { expect, type Locator, type Page } from "@playwright/test";

/** `/conversations/[id]`: the live conversation page (leader chat, composer, team panel, agent drawer). */
export class ConversationPage {
  constructor(readonly page: Page) {}

  async goto(id: string) {
    await this.page.goto(`/conversations/${id}`);
    await expect(this.page.getByTestId("conversation-title")).toBeVisible();
  }

  /** The conversation id from the current URL. */
  get id(): string {
    return new URL(this.page.url()).pathname.split("/").pop() ?? "";
  }

  get phase(): Locator {
    return this.page.getByTestId("phase-indicator");
  }

  get messages(): Locator {
    return this.page.getByTestId("leader-messages").getByTestId("chat-message");
  }

  /** The person's own messages (right-aligned bubbles). */
  get personMessages(): Locator {
    return this.page.locator('[data-testid="leader-messages"] [data-testid="chat-message"][data-kind="person"]');
  }

  get reportCards(): Locator {
    return this.page.getByTestId("leader-messages").getByTestId("report-card");
  }

  /** The report card of sub-agent `agentId` (display names end in `_<agent_id>`). */
  reportFrom(agentId: string): Locator {
    return this.page.locator(`[data-testid="leader-messages"] [data-testid="report-card"][data-sender$="_${agentId}"]`).first();
  }

  get agents(): Locator {
    return this.page.getByTestId("team-panel").getByTestId("agent-card");
  }

  agent(agentId: string): Locator {
    return this.page.locator(`[data-testid="agent-card"][data-agent-id="${agentId}"]`);
  }

  /** The agent cards that show "waiting for your answer". */
  get waitingAgents(): Locator {
    return this.agents.filter({ has: this.page.getByTestId("agent-waiting-marker") });
  }

  get drawer(): Locator {
    return this.page.getByTestId("agent-drawer");
  }

  /** Types into the composer and presses Enter. */
  async send(text: string) {
    const input = this.page.getByTestId("composer-input");
    await input.fill(text);
    await input.press("Enter");
    await expect(input).toHaveValue("");
  }

  /**
   * Starts noting, in the page, every status and last activity any agent card shows, so a test
   * can tell that agents progressed even when a step is shorter than a poll interval. A reload
   * forgets what was noted.
   */
  async recordTeam() {
    await this.page.evaluate(() => {
      const w = window as unknown as { __astrionTeam?: { statuses: string[]; activities: string[]; progress: string[] } };
      const seen = { statuses: [] as string[], activities: [] as string[], progress: [] as string[] };
      w.__astrionTeam = seen;
      const note = () => {
        for (const card of document.querySelectorAll('[data-testid="agent-card"]')) {
          const id = card.getAttribute("data-agent-id") ?? "";
          const status = `${id}:${card.getAttribute("data-status") ?? ""}`;
          const activity = `${id}:${card.querySelector('[data-testid="agent-current-action"]')?.textContent ?? ""}`;
          const calls = card.querySelector('[data-testid="agent-calls"]')?.textContent ?? "";
          const progress = `${activity}|${calls}`;
          if (!seen.statuses.includes(status)) seen.statuses.push(status);
          if (!seen.progress.includes(progress)) seen.progress.push(progress);
          if (!seen.activities.includes(activity)) seen.activities.push(activity);
        }
      };
      new MutationObserver(note).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
      note();
    });
  }

  /**
   * What {@link recordTeam} noted so far: `<agent_id>:<status>`, `<agent_id>:<last activity>` and
   * `<agent_id>:<last activity>|<calls>` (an agent's card changing as it works).
   */
  async recordedTeam(): Promise<{ statuses: string[]; activities: string[]; progress: string[] }> {
    return this.page.evaluate(() => {
      const w = window as unknown as { __astrionTeam?: { statuses: string[]; activities: string[]; progress: string[] } };
      return w.__astrionTeam ?? { statuses: [], activities: [], progress: [] };
    });
  }

  /** Every agent card's id, status and last activity, in panel order. */
  async agentStates(): Promise<Array<{ id: string; status: string; activity: string }>> {
    return this.agents.evaluateAll((cards) =>
      cards.map((card) => ({
        id: card.getAttribute("data-agent-id") ?? "",
        status: card.getAttribute("data-status") ?? "",
        activity: card.querySelector('[data-testid="agent-current-action"]')?.textContent ?? "",
      })),
    );
  }

  /** The `data-kind` of every chat row of the leader chat, in order (`person`, `assistant`, `report`, …). */
  async messageKinds(): Promise<Array<{ kind: string; text: string }>> {
    return this.messages.evaluateAll((rows) =>
      rows.map((row) => ({ kind: row.getAttribute("data-kind") ?? "", text: (row.textContent ?? "").trim() })),
    );
  }
}
