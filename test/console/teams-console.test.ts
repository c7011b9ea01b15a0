import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SETUP_TIMEOUT_MS } from "../helpers/timeouts";
import { type ConsoleUnderTest, fieldRefusal, rejection, startConsole } from "./console-fixture";

let app: ConsoleUnderTest;

beforeAll(async () => {
  app = await startConsole();
}, SETUP_TIMEOUT_MS);

afterAll(() => app?.close(), SETUP_TIMEOUT_MS);

describe("teams in the console", () => {
  test("an administrator creates teams; a team admin manages the team's members and tokens and sees its usage and logs, and nothing of other teams", async () => {
    const administrator = await app.signedInUser({ role: "admin" });
    const lead = await app.signedInUser();
    const member = await app.signedInUser();
    const outsider = await app.signedInUser();
    const team = await administrator.caller.teams.create({ name: "Platform", budget: "5", budgetPeriod: "monthly", rpmLimit: 60 });
    const other = await administrator.caller.teams.create({ name: "Elsewhere" });
    expect(team.budget).toMatchObject({ limit: 5_000_000, period: "monthly" });
    await administrator.caller.teams.addMember({ teamId: team.id, userId: lead.id, role: "team_admin" });

    await lead.caller.teams.addMember({ teamId: team.id, userId: member.id });
    const { token, secret } = await lead.caller.tokens.create({ name: "service key", userId: member.id, teamId: team.id });
    expect(secret).toStartWith("sk-");
    expect((await lead.caller.tokens.list({ offset: 0, limit: 10, teamId: team.id })).items.map((row) => row.id)).toEqual([token.id]);
    expect((await lead.caller.tokens.roll({ id: token.id, graceSeconds: 0 })).secret).not.toBe(secret);
    // The member's own account limits bind the token, whoever edits it.
    await administrator.caller.users.update({ id: member.id, rpmLimit: 10 });
    expect((await lead.caller.tokens.update({ id: token.id, rpmLimit: 5 })).rpmLimit).toBe(5);
    expect((await rejection(lead.caller.tokens.update({ id: token.id, rpmLimit: 50 }))).code).toBe("FORBIDDEN");
    expect(await lead.caller.teams.usage({ id: team.id })).toEqual([]);
    expect(await lead.caller.teams.logs({ id: team.id })).toEqual([]);
    const shown = await lead.caller.teams.byId({ id: team.id });
    expect(Object.fromEntries(shown.members.map((row) => [row.userId, row.role]))).toEqual({ [lead.id]: "team_admin", [member.id]: "member" });
    expect(shown.yourRole).toBe("team_admin");
    expect((await lead.caller.teams.list()).map((row) => row.name)).toEqual(["Platform"]);

    expect((await rejection(lead.caller.teams.byId({ id: other.id }))).code).toBe("NOT_FOUND");
    expect((await rejection(lead.caller.teams.update({ id: team.id, budget: "9" }))).code).toBe("FORBIDDEN");
    expect((await rejection(lead.caller.users.list())).code).toBe("FORBIDDEN");
    expect((await rejection(member.caller.teams.addMember({ teamId: team.id, userId: outsider.id }))).code).toBe("FORBIDDEN");
    expect((await member.caller.tokens.byId({ id: token.id })).teamId).toBe(team.id);
    expect((await rejection(outsider.caller.tokens.byId({ id: token.id }))).code).toBe("NOT_FOUND");
    expect((await rejection(outsider.caller.teams.usage({ id: team.id }))).code).toBe("NOT_FOUND");
    expect((await rejection(outsider.caller.teams.create({ name: "Mine" }))).code).toBe("FORBIDDEN");

    await lead.caller.tokens.delete({ id: token.id });
    await lead.caller.teams.removeMember({ teamId: team.id, userId: member.id });
    expect((await administrator.caller.teams.byId({ id: team.id })).members.map((row) => row.userId)).toEqual([lead.id]);
    await administrator.caller.teams.delete({ id: other.id });
    expect((await administrator.caller.teams.list()).map((row) => row.name)).toEqual(["Platform"]);
  });

  test("a team's budget time zone and alert thresholds are stored on create and on update and come back in its view; bad ones are refused on their field", async () => {
    const administrator = await app.signedInUser({ role: "admin" });
    const created = await administrator.caller.teams.create({ name: "Zoned", budget: "40", budgetPeriod: "monthly", budgetTimeZone: "asia/tokyo", alertThresholds: [90, 50] });
    expect(created).toMatchObject({ budgetTimeZone: "Asia/Tokyo", alertThresholds: [50, 90], budget: { period: "monthly", timeZone: "Asia/Tokyo", limit: 40_000_000 } });
    expect(await administrator.caller.teams.byId({ id: created.id })).toMatchObject({ budgetTimeZone: "Asia/Tokyo", alertThresholds: [50, 90] });
    expect((await administrator.caller.teams.list()).find((row) => row.id === created.id)).toMatchObject({ budgetTimeZone: "Asia/Tokyo", alertThresholds: [50, 90] });

    const updated = await administrator.caller.teams.update({ id: created.id, budgetTimeZone: "Europe/Paris", alertThresholds: [] });
    expect(updated).toMatchObject({ budgetTimeZone: "Europe/Paris", alertThresholds: [], budget: { timeZone: "Europe/Paris" } });
    expect((await administrator.caller.teams.update({ id: created.id, alertThresholds: null })).alertThresholds).toBeNull();

    const zone = 'Must be an IANA time zone, such as "UTC" or "Europe/Paris"';
    const thresholds = "Must be a list of percentages from 1 to 1000 (at most 10)";
    expect(await fieldRefusal(() => administrator.caller.teams.create({ name: "Nowhere", budgetTimeZone: "Mars/Olympus" }), "budgetTimeZone")).toEqual({ code: "BAD_REQUEST", messages: [zone] });
    expect(await fieldRefusal(() => administrator.caller.teams.update({ id: created.id, alertThresholds: [0] }), "alertThresholds")).toEqual({ code: "BAD_REQUEST", messages: [thresholds] });
    expect(await administrator.caller.teams.byId({ id: created.id })).toMatchObject({ budgetTimeZone: "Europe/Paris", alertThresholds: null });
  });
});
