import { describe, expect, it } from "vitest";
import { assertInbox, checkInbox, inboxLimitFromEnv, InboxFullError } from "./inbox";

describe("bounded inbox", () => {
  it("accepts until the limit, then answers busy", () => {
    expect(checkInbox("Code Reviewer 1", 9, 10)).toEqual({ ok: true });
    expect(checkInbox("Code Reviewer 1", 10, 10)).toEqual({
      ok: false,
      pending: 10,
      limit: 10,
      message: "inbox full: Code Reviewer 1 has 10 unread messages; try again later",
    });
  });

  it("reads ASTRION_INBOX_LIMIT, default 10", () => {
    expect(inboxLimitFromEnv({})).toBe(10);
    expect(inboxLimitFromEnv({ ASTRION_INBOX_LIMIT: "3" })).toBe(3);
    expect(inboxLimitFromEnv({ ASTRION_INBOX_LIMIT: "0" })).toBe(10);
    expect(inboxLimitFromEnv({ ASTRION_INBOX_LIMIT: "x" })).toBe(10);
  });

  it("assertInbox throws a 429 error for the API path", () => {
    expect(() => assertInbox("A", 2, 3)).not.toThrow();
    try {
      assertInbox("A", 3, 3);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(InboxFullError);
      expect((error as InboxFullError).status).toBe(429);
      expect((error as InboxFullError).details).toMatchObject({ retry_after_seconds: 5, pending: 3, limit: 3 });
    }
  });
});
