/**
 * The identity header the proxy hands routes: what it encodes comes back whole, anything else
 * (a client's guess, a truncated or oversized value) is nobody, and the owner is named from the
 * environment with "Owner" as the last resort.
 */
import { describe, expect, it } from "vitest";
import { decodeIdentity, encodeIdentity, ownerIdentity } from "./identity";

describe("the identity header", () => {
  it("round-trips a person, names of any script included", () => {
    const person = { id: "u_9Qk2", name: "李雷 [QA]".replace(/[[\]]/g, ""), role: "approver", via: "password" } as const;
    expect(decodeIdentity(encodeIdentity(person))).toEqual(person);
  });

  it("reads anything that is not one it made as nobody", () => {
    const forged = Buffer.from(JSON.stringify({ id: "owner", name: "Me", role: "root", via: "token" })).toString("base64url");
    for (const value of [null, "", "owner", forged, encodeIdentity(ownerIdentity("token", {})).slice(0, 10), "x".repeat(3000)]) expect(decodeIdentity(value)).toBeNull();
  });
});

describe("the owner", () => {
  it("is named by ASTRION_OWNER_NAME, else the OS user, else Owner, with a stable id", () => {
    expect(ownerIdentity("local", { ASTRION_OWNER_NAME: "Mei", USER: "mei" })).toEqual({ id: "owner", name: "Mei", role: "owner", via: "local" });
    expect(ownerIdentity("token", { USER: "mei" })).toMatchObject({ id: "owner", name: "mei", via: "token" });
    expect(ownerIdentity("local", { LOGNAME: "ops" }).name).toBe("ops");
    expect(ownerIdentity("local", {}).name).toBe("Owner");
  });
});
