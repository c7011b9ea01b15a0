import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type ConsoleUnderTest, rejection, startConsole, type SignedInUser } from "./console-fixture";

let harness: ConsoleUnderTest;
let admin: SignedInUser;
let alice: SignedInUser;

beforeAll(async () => {
  harness = await startConsole();
  admin = await harness.signedInUser({ name: "root", role: "admin" });
  alice = await harness.signedInUser({ name: "alice", group: "research" });
  for (let index = 0; index < 25; index++) await alice.caller.tokens.create({ name: `batch-${String(index).padStart(2, "0")}` });
  await alice.caller.tokens.create({ name: "100%_literal" });
  await admin.caller.tokens.create({ name: "admin-own" });
  for (let index = 0; index < 12; index++) await admin.caller.users.create({ name: `member-${index}`, group: index % 2 === 0 ? "even" : "odd" });
}, 60_000);

afterAll(() => harness?.close());

describe("token search and paging", () => {
  test("pages come newest first with the total of every match, and the last page is short", async () => {
    const first = await alice.caller.tokens.list({ query: "batch", offset: 0, limit: 10 });
    expect(first.total).toBe(25);
    expect(first.items.map((token) => token.name)).toEqual(Array.from({ length: 10 }, (_, index) => `batch-${String(24 - index).padStart(2, "0")}`));
    const last = await alice.caller.tokens.list({ query: "batch", offset: 20, limit: 10 });
    expect(last.items.map((token) => token.name)).toEqual(["batch-04", "batch-03", "batch-02", "batch-01", "batch-00"]);
  });

  test("the search is case-insensitive, takes % and _ literally, and an administrator also finds tokens by owner", async () => {
    expect((await alice.caller.tokens.list({ query: "BATCH-1", limit: 50 })).total).toBe(10);
    expect((await alice.caller.tokens.list({ query: "%_", limit: 50 })).items.map((token) => token.name)).toEqual(["100%_literal"]);
    expect((await admin.caller.tokens.list({ query: "alice", limit: 50 })).total).toBe(26);
    // A user's search never reaches someone else's tokens.
    expect((await alice.caller.tokens.list({ query: "admin", limit: 50 })).total).toBe(0);
    expect((await alice.caller.tokens.list()).total).toBe(26);
  });

  test("page sizes are bounded and another user's tokens stay out of reach", async () => {
    expect((await rejection(alice.caller.tokens.list({ limit: 1000 }))).code).toBe("BAD_REQUEST");
    expect((await rejection(alice.caller.tokens.list({ offset: -1 }))).code).toBe("BAD_REQUEST");
    expect((await rejection(alice.caller.tokens.list({ userId: admin.id }))).code).toBe("FORBIDDEN");
  });
});

describe("user search and paging", () => {
  test("an administrator searches users by name or group, a page at a time; a user may not list users", async () => {
    const page = await admin.caller.users.list({ query: "member", offset: 5, limit: 5 });
    expect(page.total).toBe(12);
    expect(page.items.map((user) => user.name)).toEqual(["member-5", "member-6", "member-7", "member-8", "member-9"]);
    expect((await admin.caller.users.list({ query: "EVEN" })).items.map((user) => user.name)).toEqual(["member-0", "member-2", "member-4", "member-6", "member-8", "member-10"]);
    expect((await admin.caller.users.list()).total).toBe(14);
    expect((await rejection(alice.caller.users.list({ query: "member" }))).code).toBe("FORBIDDEN");
  });
});
