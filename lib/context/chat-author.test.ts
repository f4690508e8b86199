/**
 * The leader's model sees who wrote a person's message (issue 32): a signed-in person's name
 * leads the text it is sent, while a message of the one person at an unconfigured machine, a
 * sub-agent's report or an author of another shape reads exactly as before.
 */
import { describe, expect, it } from "vitest";
import type { Message } from "@/lib/contracts/on-disk";
import { toChat } from "./chat";

const person = (author: unknown): Message => ({ role: "user", content: "Please review the parser", message_id: "msg_user_1", metadata: { message_source: "user", visibility: "chat", starts_work: true, author } });

describe("a person's message as the model receives it", () => {
  it("names a signed-in author, so two people's requests can be told apart", () => {
    expect(toChat(person({ id: "u_1", name: "Ada", via: "password" })).content).toBe("[Ada] Please review the parser");
    expect(toChat(person({ id: "owner", name: "Mei", via: "token" })).content).toBe("[Mei] Please review the parser");
  });

  it("leaves everything else as it was", () => {
    expect(toChat(person({ id: "owner", name: "mei", via: "local" })).content).toBe("Please review the parser");
    expect(toChat(person("Ada")).content).toBe("Please review the parser");
    expect(toChat(person(undefined)).content).toBe("Please review the parser");
    const report: Message = { ...person({ id: "u_1", name: "Ada", via: "password" }), metadata: { message_source: "sub_agent", visibility: "compact", starts_work: false } };
    expect(toChat(report).content).toBe("Please review the parser");
  });
});
