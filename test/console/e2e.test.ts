import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { createSetupCodes, type SetupCodes } from "../../packages/admin/src/index";
import { channels, mcpServers, requestLogs, spendAlerts, teams, usageHourly, users } from "@tollgate/db";
import { eq, sql } from "drizzle-orm";
import { createChannelProber } from "@tollgate/upstream";
import { createConsole } from "../../apps/console/src/create-console";
import { type Browser, launchChromium, type Page } from "../../apps/console/test-support/chromium";
import { startFakeOpenAIUpstream, type FakeOpenAIUpstream } from "../helpers/fake-openai-upstream";
import { freshDatabase, type FreshDatabase } from "../helpers/fresh-database";
import { type GatewayUnderTest, startGateway, TEST_SECRET, waitFor } from "../helpers/gateway-fixture";
import { ensureWebBuild, webDistDir } from "./build-web";
import { expectRefusedOnField } from "./form-checks";
import { expectFitsViewport } from "./layout-checks";

// A ceiling for a whole browser session, not a tuned timing: every step waits for a condition.
setDefaultTimeout(120_000);

const laptop = { width: 1280, height: 800 };
const phone = { width: 390, height: 844 };

const screenshots = join(import.meta.dir, "..", "..", "test-artifacts", "screenshots");

let database: FreshDatabase;
let upstream: FakeOpenAIUpstream;
let gateway: GatewayUnderTest;
let server: ReturnType<typeof Bun.serve>;
let consoleApp: ReturnType<typeof createConsole>;
let setupCodes: SetupCodes;
let browser: Browser;
let page: Page;
let baseUrl: string;

beforeAll(async () => {
  // Fails (not skips) without Chromium: CI installs it with scripts/install-chromium.sh.
  browser = await launchChromium();
  await ensureWebBuild();
  mkdirSync(screenshots, { recursive: true });
  database = await freshDatabase();
  upstream = await startFakeOpenAIUpstream();
  gateway = await startGateway(database.handle, { socketAddress: "127.0.0.1" });
  setupCodes = createSetupCodes(TEST_SECRET);
  consoleApp = createConsole({
    database: database.handle,
    secretBox: gateway.secretBox,
    setupCodes,
    testChannel: createChannelProber(),
    webDistDir,
    clientAddress: () => "127.0.0.1",
  });
  // One port, as `npm start` mounts it: /v1/* to the gateway, everything else to the console.
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const path = new URL(request.url).pathname;
      if (path === "/v1" || path.startsWith("/v1/")) return gateway.handle(request);
      const response = await consoleApp.handle(request);
      return response ?? Response.json({ error: { message: "not found", type: "invalid_request_error", param: null, code: "unknown_url" } }, { status: 404 });
    },
  });
  baseUrl = `http://127.0.0.1:${server.port}`;
  page = await browser.newPage({ viewport: laptop });
  // Browser-side failures show up in the test output, next to the step that timed out.
  page.on("pageerror", (error) => console.error(`[browser] ${error.message}`));
  page.on("console", (message) => {
    // 401 and 400 answers are expected (signed out at first, refused form input); script errors are not.
    if (message.type() === "error" && !message.text().startsWith("Failed to load resource")) console.error(`[browser console] ${message.text()}`);
  });
});

afterAll(async () => {
  await browser?.close();
  await server?.stop(true);
  await gateway?.stop();
  await upstream?.close();
  await database?.drop();
});

/** Every screenshot is also a layout check: nothing wider than the viewport, no action off-screen. */
async function shoot(name: string, on: Page = page): Promise<void> {
  await expectFitsViewport(on);
  await on.screenshot({ path: join(screenshots, `${name}.png`), fullPage: true });
}

/** Through the sidebar; on a phone, through the menu button first. */
async function navigate(label: string, heading: string, on: Page = page): Promise<void> {
  const menu = on.getByRole("button", { name: "Open menu" });
  if (await menu.isVisible()) await menu.click();
  await on.getByRole("navigation").getByRole("link", { name: label, exact: true }).click();
  await on.getByRole("heading", { level: 1, name: heading }).waitFor();
}

async function signIn(on: Page, name: string, password: string): Promise<void> {
  await on.goto(`${baseUrl}/login`);
  await on.getByLabel("User name").fill(name);
  await on.getByLabel("Password").fill(password);
  await on.getByRole("button", { name: "Sign in" }).click();
  await on.getByRole("heading", { level: 1, name: "Dashboard" }).waitFor();
}

/** Whether the element with keyboard focus is inside the dialog, and its text. */
function focusInDialog(on: Page): Promise<boolean> {
  return on.evaluate(() => document.activeElement?.closest("[role=dialog]") !== null && document.activeElement?.closest("[role=dialog]") !== undefined);
}

function chat(secret: string): Promise<Response> {
  return fetch(`${baseUrl}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "Hello" }] }),
  });
}

describe("console in a browser", () => {
  test("setup, channel, token, a call through /v1 seen in logs and dashboard, then the disabled token refused", async () => {
    // First run: no admin yet, so every path leads to the setup page. The code the server prints at start
    // is asked for: a wrong one is refused on its field, and so is a short password.
    const setupCode = (await setupCodes.current(database.handle.db))!;
    await page.goto(`${baseUrl}/tokens`);
    await page.getByRole("heading", { name: "Welcome to Tollgate" }).waitFor();
    await page.getByLabel("Setup code").fill("AAAAA-BBBBB-CCCCC-DDDDD");
    await page.getByLabel("Administrator name").fill("root");
    await page.getByLabel("Password", { exact: true }).fill("root-password");
    await page.getByLabel("Repeat the password").fill("root-password");
    await page.getByRole("button", { name: "Create administrator" }).click();
    await page.getByText("Wrong setup code").waitFor();
    expect(await page.getByLabel("Setup code").getAttribute("aria-invalid")).toBe("true");
    await page.getByLabel("Setup code").fill(setupCode);
    await page.getByLabel("Password", { exact: true }).fill("short");
    await page.getByLabel("Repeat the password").fill("short");
    await page.getByRole("button", { name: "Create administrator" }).click();
    // The error, not the hint ("At least 8 characters."), which is on screen from the start.
    await page.getByText("Must be at least 8 characters").waitFor();
    // The error is tied to its field for screen readers.
    const password = page.getByLabel("Password", { exact: true });
    expect(await password.getAttribute("aria-invalid")).toBe("true");
    const describedBy = (await password.getAttribute("aria-describedby"))!;
    expect(await page.locator(`[id="${describedBy}"]`).textContent()).toContain("at least 8 characters");
    await shoot("01-setup-field-error");
    await page.getByLabel("Password", { exact: true }).fill("root-password");
    await page.getByLabel("Repeat the password").fill("root-password");
    await page.getByRole("button", { name: "Create administrator" }).click();
    await page.getByRole("heading", { level: 1, name: "Dashboard" }).waitFor();
    expect(await page.getByTestId("signed-in-as").textContent()).toContain("root");

    // An empty console: the checklist in the real order, nothing done yet, pointing at Channels.
    const checklist = page.getByTestId("onboarding");
    await checklist.waitFor();
    expect(await checklist.locator("li").evaluateAll((steps) => steps.map((step) => `${step.getAttribute("data-step")}:${step.getAttribute("data-done")}`))).toEqual([
      "add-channel:false",
      "test-channel:false",
      "set-prices:false",
      "create-access:false",
      "first-call:false",
    ]);
    await shoot("00-onboarding");

    // A channel pointing at the fake upstream, then tested.
    await navigate("Channels", "Channels");
    await page.getByRole("button", { name: "Add channel" }).click();
    const channelDialog = page.getByRole("dialog");
    // A preset fills the base URL and an empty name; "None" leaves the fields to the admin.
    await channelDialog.getByLabel("Preset").selectOption({ label: "DeepSeek" });
    expect(await channelDialog.getByLabel("Base URL").inputValue()).toBe("https://api.deepseek.com/v1");
    expect(await channelDialog.getByLabel("Name").inputValue()).toBe("DeepSeek");
    await channelDialog.getByText("reasoning_content", { exact: false }).first().waitFor();
    await channelDialog.getByLabel("Preset").selectOption({ label: "None (custom)" });
    // The fields follow the chosen type's descriptor: Azure cannot list models and takes an API version's
    // Responses default; Anthropic takes a structured-output mode and no Responses switch.
    await channelDialog.getByLabel("Type").selectOption({ label: "Azure OpenAI" });
    await channelDialog.getByTestId("fetch-models-unsupported").getByText("cannot list a resource's deployments", { exact: false }).waitFor();
    expect(await channelDialog.getByLabel("Responses API").locator("option").first().textContent()).toBe("Default (by API version)");
    await channelDialog.getByLabel("Type").selectOption({ label: "Anthropic" });
    await channelDialog.getByLabel("Structured output").waitFor();
    expect(await channelDialog.getByLabel("Responses API").count()).toBe(0);
    await channelDialog.getByLabel("Type").selectOption({ label: "OpenAI-compatible" });
    await channelDialog.getByRole("button", { name: "Fetch models from upstream" }).waitFor();
    await channelDialog.getByLabel("Name").fill("fake upstream");
    await channelDialog.getByLabel("Base URL").fill(upstream.url);
    await channelDialog.getByLabel("API key").fill("sk-upstream-e2e-key-0001");
    // Fetch models from upstream: an unreachable one is reported in the form (without the key); the fake one
    // lists its models, and a click on one adds it to the channel's models.
    await channelDialog.getByLabel("Base URL").fill("http://127.0.0.1:1/v1");
    await channelDialog.getByRole("button", { name: "Fetch models from upstream" }).click();
    const fetchError = channelDialog.getByTestId("fetch-models-error");
    await fetchError.getByText("Could not reach the upstream", { exact: false }).waitFor();
    expect(await fetchError.textContent()).not.toContain("sk-upstream-e2e-key-0001");
    await channelDialog.getByLabel("Base URL").fill(upstream.url);
    await channelDialog.getByRole("button", { name: "Fetch models from upstream" }).click();
    const fetchedModels = channelDialog.getByTestId("fetched-models");
    const fetchedModel = fetchedModels.getByRole("button", { name: "gpt-4o-mini", exact: true });
    await fetchedModel.click();
    expect(await channelDialog.getByLabel("Models").inputValue()).toBe("gpt-4o-mini");
    expect(await fetchedModel.getAttribute("aria-pressed")).toBe("true");
    expect(await fetchedModels.getByRole("button").allTextContents()).toEqual(["gpt-4o", "gpt-4o-mini", "text-embedding-3-small"]);
    expect(upstream.requests.at(-1)).toMatchObject({ method: "GET", path: "/v1/models" });
    await shoot("02a-channel-fetch-models");
    await channelDialog.getByRole("button", { name: "Add channel" }).click();
    const channelRow = page.locator('tr[data-channel-name="fake upstream"]');
    await channelRow.waitFor();
    expect(await channelRow.textContent()).toContain("sk-…0001");
    await channelRow.getByRole("button", { name: "Test" }).click();
    await channelRow.getByText(/OK · \d+ ms/).waitFor();
    await shoot("02-channels");
    // Built-in tools (web search) allowed with a USD price per call, kept in micro-USD.
    await channelRow.getByRole("button", { name: "Edit" }).click();
    await page.getByRole("dialog").getByLabel("Built-in tools").fill("web_search=0.01");
    await page.getByRole("dialog").getByRole("button", { name: "Save" }).click();
    await waitFor(async () => {
      const [row] = await database.handle.db.select({ config: channels.config }).from(channels).where(eq(channels.name, "fake upstream"));
      return row?.config.builtInTools?.web_search?.pricePerCall === 10_000;
    }, "the channel's built-in tools saved from the form");
    await page.getByRole("dialog").waitFor({ state: "hidden" });
    // The preset picker also when editing: the saved channel has none; vLLM's is chosen and kept.
    await channelRow.getByRole("button", { name: "Edit" }).click();
    const editChannel = page.getByRole("dialog");
    expect(await editChannel.getByLabel("Built-in tools").inputValue()).toBe("web_search=0.01");
    expect(await editChannel.getByLabel("Preset").inputValue()).toBe("");
    await editChannel.getByLabel("Preset").selectOption({ label: "vLLM (self-hosted)" });
    expect(await editChannel.getByLabel("Base URL").inputValue()).toBe("http://localhost:8000/v1");
    // Another origin: the stored key is not sent there, so the key field turns required (and back once it is the same origin).
    expect(await editChannel.getByLabel("API key").getAttribute("aria-required")).toBe("true");
    await editChannel.getByText("Required: the base URL's origin or the type changed", { exact: false }).waitFor();
    await editChannel.getByLabel("Base URL").fill(upstream.url);
    expect(await editChannel.getByLabel("API key").getAttribute("aria-required")).toBe("false");
    await shoot("02b-channel-edit-preset");
    await editChannel.getByRole("button", { name: "Save" }).click();
    await editChannel.waitFor({ state: "detached" });
    await channelRow.getByTestId("channel-preset").getByText("preset vllm").waitFor();
    // The per-channel Responses API switch: default at first, then set, and shown again when editing.
    await channelRow.getByRole("button", { name: "Edit" }).click();
    const switches = page.getByRole("dialog");
    expect(await switches.getByLabel("Responses API").inputValue()).toBe("");
    expect(await switches.getByLabel("Structured output").count()).toBe(0);
    await switches.getByLabel("Responses API").selectOption({ label: "Speaks it: relay natively" });
    await switches.getByRole("button", { name: "Save" }).click();
    await switches.waitFor({ state: "detached" });
    await channelRow.getByRole("button", { name: "Edit" }).click();
    const reopened = page.getByRole("dialog");
    await reopened.getByLabel("Responses API").waitFor();
    expect(await reopened.getByLabel("Responses API").inputValue()).toBe("yes");
    await reopened.getByRole("button", { name: "Cancel" }).click();
    await reopened.waitFor({ state: "detached" });

    // Served without a price: flagged on the dashboard; the checklist has ticked the channel and its test.
    await navigate("Dashboard", "Dashboard");
    await page.getByTestId("unpriced-models").getByText("gpt-4o-mini").waitFor();
    await page.locator('[data-step="test-channel"][data-done="true"]').waitFor();
    expect(await page.locator('[data-step="add-channel"]').getAttribute("data-done")).toBe("true");
    expect(await page.locator('[data-step="set-prices"]').getAttribute("data-done")).toBe("false");

    // A price, so that the call has a cost.
    await navigate("Models & prices", "Models & prices");
    const modelRow = page.locator('tr[data-model="gpt-4o-mini"]');
    await modelRow.getByRole("button", { name: "Edit price" }).click();
    await page.getByLabel("Input price", { exact: true }).fill("2.5");
    await page.getByLabel("Output price", { exact: true }).fill("10");
    await page.getByLabel("Cache read price", { exact: true }).fill("1.25");
    await page.getByRole("button", { name: "Save" }).click();
    await modelRow.getByText("$2.50").waitFor();
    // The cache prices: read as set, both writes at the input price.
    await modelRow.getByText("$1.25 · = input · = input").waitFor();
    await shoot("03-models");
    await navigate("Dashboard", "Dashboard");
    await page.locator('[data-step="set-prices"][data-done="true"]').waitFor();
    expect(await page.getByTestId("unpriced-models").count()).toBe(0);

    // A token: a bad IP is refused next to its field, then the secret is shown once.
    await navigate("Tokens", "Tokens");
    // A dialog takes the focus, keeps Tab inside, and gives the focus back on Escape.
    const addToken = page.getByRole("button", { name: "Add token" });
    await addToken.focus();
    await page.keyboard.press("Enter");
    const tokenDialog = page.getByRole("dialog");
    await tokenDialog.waitFor();
    expect(await focusInDialog(page)).toBe(true);
    for (let step = 0; step < 30; step += 1) await page.keyboard.press("Tab");
    expect(await focusInDialog(page)).toBe(true);
    await page.keyboard.press("Escape");
    await tokenDialog.waitFor({ state: "detached" });
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Add token");
    await addToken.click();
    await tokenDialog.getByLabel("Name").fill("e2e laptop");
    await tokenDialog.getByLabel("IP allow-list").fill("300.1.1.1");
    await tokenDialog.getByRole("button", { name: "Create token" }).click();
    await tokenDialog.getByText('"300.1.1.1" is not an IP address or CIDR range (v4 or v6)').waitFor();
    await shoot("04-token-form-error");
    await tokenDialog.getByLabel("IP allow-list").fill("127.0.0.1\n10.0.0.0/8");
    await tokenDialog.getByRole("button", { name: "Create token" }).click();
    const secretBox = page.getByTestId("token-secret");
    await secretBox.waitFor();
    const secret = (await secretBox.textContent())!.trim();
    expect(secret).toMatch(/^sk-[0-9A-Za-z]{48}$/);
    // Ready-to-paste snippets with this gateway's address and the real key.
    const secretDialog = page.getByRole("dialog");
    const curlSnippet = (await secretDialog.getByTestId("snippet-curl").textContent())!;
    expect(curlSnippet).toContain(`curl ${baseUrl}/v1/chat/completions`);
    expect(curlSnippet).toContain(`Bearer ${secret}`);
    expect(curlSnippet).toContain('"model":"gpt-4o-mini"');
    await secretDialog.getByRole("tab", { name: "Claude Code" }).click();
    expect(await secretDialog.getByTestId("snippet-claude-code").textContent()).toBe(`export ANTHROPIC_BASE_URL=${baseUrl}\nexport ANTHROPIC_API_KEY=${secret}\nclaude`);
    await secretDialog.getByRole("tab", { name: "Python (openai)" }).click();
    expect(await secretDialog.getByTestId("snippet-python").textContent()).toContain(`base_url="${baseUrl}/v1", api_key="${secret}"`);
    await shoot("05-token-secret");
    // Escape before copying asks first; going back keeps the key on screen.
    await page.keyboard.press("Escape");
    await secretDialog.getByTestId("secret-close-warning").getByText("Close without copying the key?").waitFor();
    await secretDialog.getByRole("button", { name: "Go back" }).click();
    expect(await secretDialog.getByTestId("secret-close-warning").count()).toBe(0);
    await secretDialog.getByRole("button", { name: "I have stored the key" }).click();
    await secretDialog.getByTestId("secret-close-warning").waitFor();
    await shoot("05b-token-secret-close-warning");
    await secretDialog.getByRole("button", { name: "Go back" }).click();
    const copyKey = secretDialog.getByRole("button", { name: "Copy", exact: true }).first();
    await copyKey.click();
    await secretDialog.getByRole("button", { name: "Copied" }).first().waitFor();
    await page.getByRole("button", { name: "I have stored the key" }).click();
    await secretDialog.waitFor({ state: "detached" });
    const tokenRow = page.locator('tr[data-token-name="e2e laptop"]');
    await tokenRow.waitFor();
    expect(await page.content()).not.toContain(secret);
    await shoot("06-tokens");

    // The call, then the write-behind's rows (a condition, not a sleep).
    const response = await chat(secret);
    expect(response.status).toBe(200);
    expect(((await response.json()) as { choices: { message: { content: string } }[] }).choices[0]!.message.content).toBeString();
    await waitFor(async () => {
      const [logs] = await database.handle.db.select({ count: sql<number>`count(*)::int` }).from(requestLogs);
      const [usage] = await database.handle.db.select({ count: sql<number>`count(*)::int` }).from(usageHourly);
      return logs!.count >= 1 && usage!.count >= 1;
    }, "the request log and usage rollup");

    await navigate("Logs", "Logs");
    const logRow = page.locator('tr[data-log-model="gpt-4o-mini"]').first();
    await logRow.waitFor();
    const logText = await logRow.textContent();
    expect(logText).toContain("e2e laptop");
    expect(logText).toContain("fake upstream");
    expect(logText).toContain("200");
    expect(logText).toContain("127.0.0.1");
    await shoot("07-logs");
    // A row opens its details: the request id, the channels tried, the exact cost.
    await logRow.getByRole("button", { name: "Details" }).click();
    const detail = page.getByTestId("log-detail");
    await detail.waitFor();
    const detailText = (await detail.textContent())!;
    expect(detailText).toContain("Channels triedfake upstream");
    expect(detailText).toMatch(/Request idreq_[0-9a-z]{8,}Endpoint/);
    expect(detailText).toContain("micro-USD");
    await shoot("07b-log-detail");
    await page.keyboard.press("Escape");
    await detail.waitFor({ state: "detached" });
    // The whole range as CSV, streamed by the server (not the rows loaded), money as exact decimal USD.
    const [logsCsv] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name: "Export CSV" }).click()]);
    expect(logsCsv.suggestedFilename()).toMatch(/^tollgate-logs-\d{4}-\d{2}-\d{2}-to-\d{4}-\d{2}-\d{2}\.csv$/);
    const logsText = await Bun.file((await logsCsv.path())!).text();
    const [csvHeader, csvRow] = logsText.split("\r\n");
    expect(csvHeader).toStartWith("time,request_id,endpoint,user,token,model,upstream_model,channel,status,");
    expect(csvRow).toContain(",root,e2e laptop,gpt-4o-mini,");
    expect(csvRow).toContain(",fake upstream,200,");
    expect(logsText).not.toContain(secret);

    await navigate("Dashboard", "Dashboard");
    await page.getByTestId("stat-requests").getByText("1", { exact: true }).waitFor();
    await page.getByTestId("usage-by-model").getByText("gpt-4o-mini").waitFor();
    await page.getByTestId("usage-by-token").getByText("e2e laptop").waitFor();
    await page.getByTestId("usage-by-user").getByText("root").waitFor();
    await page.getByTestId("usage-by-channel").getByText("fake upstream").waitFor();
    await page.locator('[data-step="first-call"]').waitFor({ state: "detached" });
    await page.locator('[data-testid="usage-chart"] .recharts-area').first().waitFor();
    await shoot("08-dashboard");
    const [usageCsv] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name: "Export CSV" }).click()]);
    expect(usageCsv.suggestedFilename()).toMatch(/^tollgate-usage-.*\.csv$/);
    const usageLines = (await Bun.file((await usageCsv.path())!).text()).trim().split("\r\n");
    expect(usageLines[0]).toBe(
      "hour,user,token,model,channel,requests,errors,prompt_tokens,completion_tokens,cached_tokens,cost_usd,latency_ms_sum,latency_count,cache_write_tokens,cache_write_1h_tokens,cache_savings_usd",
    );
    expect(usageLines).toHaveLength(2);
    expect(usageLines[1]).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:00:00\.000Z,root,e2e laptop,gpt-4o-mini,fake upstream,1,0,\d+,\d+,\d+,\d+\.\d{6},\d+,1,0,0,-?\d+\.\d{6}$/);

    // The channel's recent traffic from the rollup, and Test all with a result per channel. The row shows
    // the last test to the minute: the earlier test is dated back, so that the new one cannot look the same.
    await database.handle.db.update(channels).set({ lastTestAt: new Date("2001-01-01T12:00:00Z") });
    await navigate("Channels", "Channels");
    await page.reload(); // the list may still be the one cached from the earlier visit
    await channelRow.getByTestId("channel-traffic").getByText("1 req").waitFor();
    // Error share and average latency from the rollup.
    expect(await channelRow.getByTestId("channel-traffic").textContent()).toMatch(/^1 req0% errorsavg \d+ ms$/);
    const lastTestText = () => channelRow.getByTestId("channel-last-test").textContent();
    await waitFor(async () => (await lastTestText())?.includes("2001"), "the channel's earlier test, dated back");
    await page.getByRole("button", { name: "Test all" }).click();
    await page.getByRole("button", { name: /Testing 1\/1/ }).waitFor();
    await page.getByRole("button", { name: "Test all" }).waitFor();
    await waitFor(async () => !(await lastTestText())?.includes("2001"), "the channel's new test result");
    await channelRow.getByText(/OK · \d+ ms/).waitFor();

    await navigate("Quick start", "Quick start");
    expect(await page.getByTestId("base-url").textContent()).toBe(`${baseUrl}/v1`);
    await shoot("09-quick-start");
    await navigate("Users", "Users");
    await page.locator('tr[data-user-name="root"]').waitFor();
    await shoot("10-users");

    // Disable the token in the UI: the gateway refuses it from then on (NOTIFY evicts its cached copy).
    await navigate("Tokens", "Tokens");
    await tokenRow.getByRole("button", { name: "Disable" }).click();
    await tokenRow.getByTestId("token-status").getByText("disabled").waitFor();
    await shoot("11-token-disabled");
    const refused = await waitFor(async () => {
      const attempt = await chat(secret);
      return attempt.status === 401 ? attempt : null;
    }, "the disabled token to be refused");
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("token_disabled");
  });

  test("a user edits a token an admin made within its ceilings: the form says them, and lifting one is refused beside its field", async () => {
    // Set up through the console's procedures, as the admin (the first test created root).
    const responseHeaders = new Headers();
    await consoleApp.createCaller({ responseHeaders }).auth.login({ name: "root", password: "root-password" });
    const admin = consoleApp.createCaller({ headers: { cookie: responseHeaders.get("set-cookie")!.split(";")[0]! } });
    const alice = await admin.users.create({ name: "alice", password: "alice-password" });
    await admin.tokens.create({ name: "granted", userId: alice.id, quotaLimit: "5", group: "vip" });
    // A limit on alice herself, which every token of hers inherits.
    await admin.users.update({ id: alice.id, rpmLimit: 30 });

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByLabel("User name").waitFor();
    await signIn(page, "alice", "alice-password");
    await page.getByTestId("onboarding").waitFor();
    // A user's checklist is their own part: a token (an admin made one), then a call.
    expect(await page.locator("[data-testid=onboarding] li").evaluateAll((steps) => steps.map((step) => `${step.getAttribute("data-step")}:${step.getAttribute("data-done")}`))).toEqual([
      "create-access:true",
      "first-call:false",
    ]);
    expect(await page.getByTestId("unpriced-models").count()).toBe(0);
    // An administrators' page opened by a user says so instead of a silent redirect.
    await page.goto(`${baseUrl}/channels`);
    await page.getByRole("heading", { name: "Channels is for administrators" }).waitFor();
    await navigate("Tokens", "Tokens");
    const tokenRow = page.locator('tr[data-token-name="granted"]');
    await tokenRow.getByRole("button", { name: "Edit" }).click();
    const dialog = page.getByRole("dialog");
    const group = dialog.getByLabel("Group");
    expect(await group.inputValue()).toBe("vip");
    expect(await group.isDisabled()).toBe(true);
    await dialog.getByText("At most $5.00 (set by an administrator).").waitFor();
    await dialog.getByTestId("inherited-limits").getByText("30, all tokens together").waitFor();
    await dialog.getByLabel("Unlimited").check();
    await dialog.getByRole("button", { name: "Save" }).click();
    await dialog.getByText("An administrator capped this token's quota at 5 USD: enter that or less").waitFor();
    await shoot("12-token-ceiling-refused");
    await dialog.getByLabel("Unlimited").uncheck();
    await dialog.getByLabel("Quota (USD)").fill("3");
    await dialog.getByRole("button", { name: "Save" }).click();
    await dialog.waitFor({ state: "detached" });
    await tokenRow.getByText("$3.00").waitFor();
  });

  test("an admin tops up a user and sees it in the user's history with who and why, and changes the user's role but not their own", async () => {
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByLabel("User name").waitFor();
    await signIn(page, "root", "root-password");
    await navigate("Users", "Users");
    const aliceRow = page.locator('tr[data-user-name="alice"]');
    await aliceRow.getByRole("button", { name: "Top up" }).click();
    const topUp = page.getByRole("dialog");
    await topUp.getByLabel("Amount (USD)").fill("1.5");
    await topUp.getByLabel("Reason").fill("invoice 42");
    await topUp.getByRole("button", { name: "Save" }).click();
    await topUp.waitFor({ state: "detached" });
    await aliceRow.getByRole("button", { name: "History" }).click();
    const entry = page.getByTestId("balance-history").locator("[data-balance-log]").first();
    await entry.waitFor();
    const entryText = (await entry.textContent())!;
    expect(entryText).toContain("+$1.50");
    expect(entryText).toContain("invoice 42");
    expect(entryText).toContain("root");
    await shoot("13-user-balance-history");
    await page.keyboard.press("Escape");

    // Subtracting: the note is required, and going below zero only when explicitly allowed.
    await aliceRow.getByRole("button", { name: "Subtract" }).click();
    const subtract = page.getByRole("dialog");
    await subtract.getByLabel("Amount to subtract (USD)").fill("2");
    await subtract.getByRole("button", { name: "Save" }).click();
    await subtract.getByText("Must say why the balance is lowered").waitFor();
    expect(await subtract.getByLabel("Note").getAttribute("aria-invalid")).toBe("true");
    await subtract.getByLabel("Note").fill("chargeback");
    await subtract.getByRole("button", { name: "Save" }).click();
    await subtract.getByText("Would take the balance below zero", { exact: false }).waitFor();
    await shoot("13b-user-subtract-refused");
    await subtract.getByLabel("Allow the balance to go below zero").check();
    await subtract.getByRole("button", { name: "Save" }).click();
    await subtract.waitFor({ state: "detached" });
    await aliceRow.getByRole("button", { name: "History" }).click();
    const lowered = page.getByTestId("balance-history").locator("[data-balance-log]").first();
    await lowered.getByText("chargeback").waitFor();
    expect(await lowered.textContent()).toContain("2.00");
    await shoot("13c-user-balance-history-subtracted");
    await page.keyboard.press("Escape");

    // The limits on alice that bind all of her tokens: the one set earlier shows, and token creation is withheld.
    await aliceRow.getByRole("button", { name: "Limits" }).click();
    const limits = page.getByRole("dialog");
    expect(await limits.getByLabel("Requests per minute").inputValue()).toBe("30");
    await limits.getByLabel("May create tokens", { exact: false }).uncheck();
    await shoot("13d-user-limits");
    await limits.getByRole("button", { name: "Save" }).click();
    await limits.waitFor({ state: "detached" });
    const [aliceLimits] = await database.handle.db.select({ rpmLimit: users.rpmLimit, mayCreateTokens: users.mayCreateTokens }).from(users).where(eq(users.name, "alice"));
    expect(aliceLimits).toEqual({ rpmLimit: 30, mayCreateTokens: false });

    const rootRow = page.locator('tr[data-user-name="root"]');
    expect(await rootRow.getByRole("button", { name: "Make user" }).count()).toBe(0);
    await aliceRow.getByRole("button", { name: "Make admin" }).click();
    await aliceRow.getByRole("button", { name: "Make user" }).waitFor();
    expect(await aliceRow.textContent()).toContain("admin");
    await aliceRow.getByRole("button", { name: "Make user" }).click();
    await aliceRow.getByRole("button", { name: "Make admin" }).waitFor();
    await shoot("14-users-roles");
  });

  test("tokens and users are searched and paged by the server: two pages of tokens, a search narrowing each list", async () => {
    const responseHeaders = new Headers();
    await consoleApp.createCaller({ responseHeaders }).auth.login({ name: "root", password: "root-password" });
    const admin = consoleApp.createCaller({ headers: { cookie: responseHeaders.get("set-cookie")!.split(";")[0]! } });
    for (let index = 0; index < 21; index++) await admin.tokens.create({ name: `bulk-${String(index).padStart(2, "0")}` });
    const total = (await admin.tokens.list()).total;
    expect(total).toBe(23);

    await navigate("Tokens", "Tokens");
    const range = page.getByTestId("tokens-pager-range");
    await range.getByText(`1–20 of ${total}`).waitFor();
    expect(await page.locator("[data-testid=tokens-table] tbody tr").count()).toBe(20);
    await page.getByTestId("tokens-pager").getByRole("button", { name: "Next" }).click();
    await range.getByText(`21–${total} of ${total}`).waitFor();
    await page.locator('tr[data-token-name="e2e laptop"]').waitFor();
    await shoot("15-tokens-page-2");
    await page.getByLabel("Search tokens").fill("bulk-1");
    await range.getByText("1–10 of 10").waitFor();
    expect(await page.locator("[data-testid=tokens-table] tbody tr").count()).toBe(10);
    await shoot("16-tokens-search");

    await navigate("Users", "Users");
    await page.getByLabel("Search users").fill("ali");
    await page.getByTestId("users-pager-range").getByText("1–1 of 1").waitFor();
    expect(await page.locator("[data-testid=users-table] tbody tr").evaluateAll((rows) => rows.map((row) => row.getAttribute("data-user-name")))).toEqual(["alice"]);
    await shoot("17-users-search");
  });

  test("an admin gives a token a daily quota in a time zone and a user a monthly budget, sets the alert webhook, and sees a spend alert as a notice", async () => {
    await navigate("Tokens", "Tokens");
    await page.getByRole("button", { name: "Add token" }).click();
    const tokenDialog = page.getByRole("dialog");
    await tokenDialog.getByLabel("Name").fill("daily budget");
    await tokenDialog.getByLabel("Unlimited").uncheck();
    await tokenDialog.getByLabel("Quota (USD)").fill("3");
    await tokenDialog.getByLabel("Budget period").selectOption("daily");
    await tokenDialog.getByLabel("Time zone").fill("Asia/Tokyo");
    await tokenDialog.getByLabel("Alert at (%)").fill("90, 100");
    await tokenDialog.getByRole("button", { name: "Create token" }).click();
    const secretDialog = page.getByRole("dialog");
    await secretDialog.getByTestId("token-secret").waitFor();
    await secretDialog.getByRole("button", { name: "Copy", exact: true }).first().click();
    await secretDialog.getByRole("button", { name: "I have stored the key" }).click();
    await secretDialog.waitFor({ state: "detached" });
    const tokenBudget = page.locator('tr[data-token-name="daily budget"]').getByTestId("budget-cell");
    await tokenBudget.getByText("$3.00 left").waitFor();
    expect(await tokenBudget.textContent()).toContain("daily, resets");
    await shoot("15a-token-daily-budget");

    await navigate("Users", "Users");
    const aliceRow = page.locator('tr[data-user-name="alice"]');
    await aliceRow.getByRole("button", { name: "Budget" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByLabel("No budget").uncheck();
    await dialog.getByLabel("Budget (USD)").fill("25");
    await dialog.getByLabel("Budget period").selectOption("monthly");
    await dialog.getByLabel("Time zone").fill("Mars/Olympus");
    await dialog.getByRole("button", { name: "Save" }).click();
    await dialog.getByText('Must be an IANA time zone, such as "UTC" or "Europe/Paris"').waitFor();
    await shoot("15-user-budget-error");
    await dialog.getByLabel("Time zone").fill("Europe/Paris");
    await dialog.getByRole("button", { name: "Save" }).click();
    await dialog.waitFor({ state: "detached" });
    const budgetCell = aliceRow.getByTestId("budget-cell");
    await budgetCell.getByText("$25.00 left").waitFor();
    expect(await budgetCell.textContent()).toContain("monthly, resets");
    const [alice] = await database.handle.db.select().from(users).where(eq(users.name, "alice"));
    expect(alice).toMatchObject({ budgetLimit: 25_000_000, budgetPeriod: "monthly", budgetTimeZone: "Europe/Paris" });

    await navigate("Spend alerts", "Spend alerts");
    const settings = page.getByTestId("alert-settings");
    await settings.getByLabel("Webhook URL").fill("https://hooks.example.com/tollgate");
    await settings.getByLabel("Signing secret").fill("e2e-signing-secret-WXYZ");
    await settings.getByLabel("Default thresholds (%)").fill("80, 100");
    await settings.getByRole("button", { name: "Save" }).click();
    await settings.getByText("Saved.").waitFor();
    await settings.getByText("Set (…WXYZ). Type a new one to replace it.").waitFor();
    expect(await page.content()).not.toContain("e2e-signing-secret-WXYZ");
    // An alert as the gateway's write-behind raises it (no delivery due: the test has no receiver).
    await database.handle.db.insert(spendAlerts).values({
      subjectKind: "user",
      subjectId: alice!.id,
      userId: alice!.id,
      userName: "alice",
      period: "monthly",
      periodStart: new Date("2026-11-01T00:00:00Z"),
      periodEnd: new Date("2026-12-01T00:00:00Z"),
      threshold: 80,
      spent: 20_000_000,
      limit: 25_000_000,
      nextAttemptAt: null,
    });
    await page.reload();
    await page.getByTestId("alerts-table").getByText("User alice").waitFor();
    await shoot("16-alerts");
    await navigate("Dashboard", "Dashboard");
    await page.getByTestId("spend-alert-notice").getByText("User alice reached 80% of its monthly budget").waitFor();
    await shoot("17-dashboard-alert-notice");
  });

  test("an admin walks the team, audit, API key and MCP pages: a team with a member, the change in the audit log, a management key shown once, an MCP server tested", async () => {
    // Teams: the empty list says what a team is for and how to start one.
    await navigate("Teams", "Teams");
    await page.getByTestId("teams-table").getByText("No teams yet. Add one", { exact: false }).waitFor();
    await shoot("40-teams-empty");
    await page.getByRole("button", { name: "Add team" }).click();
    const teamDialog = page.getByRole("dialog");
    await teamDialog.getByLabel("Name").fill("Platform");
    await teamDialog.getByLabel("Budget (USD)").fill("abc");
    await teamDialog.getByRole("button", { name: "Add team" }).click();
    // A refused value is said under its field.
    await waitFor(async () => (await teamDialog.getByLabel("Budget (USD)").getAttribute("aria-invalid")) === "true", "the refused budget said on its field");
    await shoot("40a-team-form-error");
    await teamDialog.getByLabel("Budget (USD)").fill("25");
    await teamDialog.getByLabel("Requests per minute (all tokens together)").fill("60");
    // A monthly budget in a time zone, with its own alert thresholds: a zone that is not one is refused on its field.
    await teamDialog.getByLabel("Budget period").selectOption("monthly");
    await teamDialog.getByLabel("Time zone").fill("Mars/Olympus");
    await teamDialog.getByLabel("Alert at (%)").fill("50, 90");
    await teamDialog.getByRole("button", { name: "Add team" }).click();
    await expectRefusedOnField(teamDialog, { label: "Time zone", message: 'Must be an IANA time zone, such as "UTC" or "Europe/Paris"' }, ["Budget (USD)", "Alert at (%)"]);
    await shoot("40b-team-form-time-zone-error");
    await teamDialog.getByLabel("Time zone").fill("Europe/Paris");
    await teamDialog.getByRole("button", { name: "Add team" }).click();
    await teamDialog.waitFor({ state: "detached" });
    const teamRow = page.locator('tr[data-team-name="Platform"]');
    await teamRow.getByText("$25.00", { exact: false }).waitFor();
    expect(await teamRow.getByTestId("budget-cell").textContent()).toContain("monthly, resets");
    const [platform] = await database.handle.db.select().from(teams).where(eq(teams.name, "Platform"));
    expect(platform).toMatchObject({ budgetLimit: 25_000_000, budgetPeriod: "monthly", budgetTimeZone: "Europe/Paris", alertThresholds: [50, 90], rpmLimit: 60 });
    for (const action of ["Members & usage", "Disable", "Delete"]) expect(await teamRow.getByRole(action === "Members & usage" ? "link" : "button", { name: action }).isVisible()).toBe(true);
    await shoot("41-teams");
    // Switched off and on again: two changes the audit log shows field by field.
    await teamRow.getByRole("button", { name: "Disable" }).click();
    await teamRow.getByText("disabled").waitFor();
    await teamRow.getByRole("button", { name: "Enable" }).click();
    await teamRow.getByText("enabled").waitFor();

    // The team's page: its limits, then a member found by name, not by id.
    await teamRow.getByRole("link", { name: "Platform" }).click();
    await page.getByRole("heading", { level: 1, name: "Platform" }).waitFor();
    expect(await page.getByTestId("team-limits").textContent()).toContain("60 requests");
    expect(await page.getByTestId("team-budget-settings").textContent()).toBe("periods start at midnight Europe/Paris; alerts at 50, 90%");
    await page.getByTestId("team-members").getByText("No members yet: Add member", { exact: false }).waitFor();
    await page.getByRole("button", { name: "Add member" }).click();
    const memberDialog = page.getByRole("dialog");
    await memberDialog.getByLabel("Find a user").fill("ali");
    await memberDialog.getByLabel("User").locator("option", { hasText: "alice" }).waitFor({ state: "attached" });
    await memberDialog.getByLabel("Role").selectOption("team_admin");
    await shoot("42a-team-add-member");
    await memberDialog.getByRole("button", { name: "Add member" }).click();
    await memberDialog.waitFor({ state: "detached" });
    const aliceMember = page.locator('tr[data-member-name="alice"]');
    await aliceMember.getByText("team admin").waitFor();
    // Removing a member asks first; cancelled, alice stays.
    await aliceMember.getByRole("button", { name: "Remove" }).click();
    const removeDialog = page.getByRole("dialog");
    await removeDialog.getByText("Remove alice from Platform?").waitFor();
    await shoot("42b-team-remove-member-confirm");
    await removeDialog.getByRole("button", { name: "Cancel" }).click();
    await removeDialog.waitFor({ state: "detached" });
    await aliceMember.waitFor();
    await page.getByTestId("team-logs").getByText("No calls yet", { exact: false }).waitFor();
    await shoot("42-team-detail");
    await page.getByRole("link", { name: "← All teams" }).click();
    await page.getByRole("heading", { level: 1, name: "Teams" }).waitFor();
    await teamRow.getByRole("link", { name: "Platform" }).click();
    await page.getByRole("heading", { level: 1, name: "Platform" }).waitFor();

    // The token form offers the team.
    await navigate("Tokens", "Tokens");
    await page.getByRole("button", { name: "Add token" }).click();
    const tokenDialog = page.getByRole("dialog");
    await tokenDialog.getByLabel("Team").locator("option", { hasText: "Platform" }).waitFor({ state: "attached" });
    await shoot("43-token-form-team");
    await page.keyboard.press("Escape");
    await tokenDialog.waitFor({ state: "detached" });

    // The audit log: the team's creation by root, its before and after, the chain verified.
    await navigate("Audit log", "Audit log");
    await page.getByLabel("Action").fill("team.");
    const auditRows = page.locator("[data-testid=audit-table] tbody tr");
    await auditRows.filter({ hasText: "team.create" }).waitFor();
    expect(await auditRows.filter({ hasText: "team.create" }).textContent()).toContain("user root");
    // The object is named as it was then, with its id.
    expect(await auditRows.filter({ hasText: "team.create" }).textContent()).toMatch(/team Platform \(#\d+\)/);
    await shoot("44-audit");
    await auditRows.filter({ hasText: "team.create" }).getByRole("button", { name: "Changes" }).click();
    await page.getByTestId("audit-after").getByText('"name": "Platform"', { exact: false }).waitFor();
    expect(await page.getByTestId("audit-before").textContent()).toBe("(none)");
    await shoot("44a-audit-changes");
    await page.keyboard.press("Escape");
    const update = auditRows.filter({ hasText: "team.update" }).first();
    await update.getByRole("button", { name: "Changes" }).click();
    expect(await page.getByTestId("audit-changed").textContent()).toBe("Changed: status");
    await shoot("44c-audit-update-changes");
    await page.keyboard.press("Escape");
    await page.getByRole("button", { name: "Verify chain" }).click();
    await page.getByTestId("audit-verification").getByText(/intact: \d+ rows chain correctly/).waitFor();
    const retention = page.getByTestId("audit-retention");
    await retention.getByText("Retention: rows are kept forever").waitFor();
    await retention.locator("summary").click();
    await page.getByLabel("Keep audit rows (days; empty: forever)").fill("-3");
    await page.getByRole("button", { name: "Save retention" }).click();
    await waitFor(async () => (await page.getByLabel("Keep audit rows (days; empty: forever)").getAttribute("aria-invalid")) === "true", "the refused retention said on its field");
    await shoot("44b-audit-verified");
    await page.getByLabel("Keep audit rows (days; empty: forever)").fill("400");
    await page.getByRole("button", { name: "Save retention" }).click();
    await retention.getByText("Retention: rows older than 400 days are deleted").waitFor();

    // API keys: made here, shown once, listed by prefix.
    await navigate("API keys", "API keys");
    await page.getByTestId("api-keys-table").getByText("No API keys yet", { exact: false }).waitFor();
    await shoot("45-api-keys-empty");
    // A key needs a name: said under the field.
    await page.getByRole("button", { name: "Create key" }).click();
    await waitFor(async () => (await page.getByLabel("Name").getAttribute("aria-invalid")) === "true", "the missing name said on its field");
    await page.getByLabel("Name").fill("e2e reporting");
    await page.getByRole("button", { name: "Create key" }).click();
    const keyDialog = page.getByRole("dialog");
    const apiSecret = (await keyDialog.getByTestId("api-key-secret").textContent())!.trim();
    await shoot("45a-api-key-secret");
    await keyDialog.getByRole("button", { name: "Copy", exact: true }).first().click();
    await keyDialog.getByRole("button", { name: "I have stored the key" }).click();
    await keyDialog.waitFor({ state: "detached" });
    const keyRow = page.locator("[data-testid=api-keys-table] tbody tr", { hasText: "e2e reporting" });
    await keyRow.getByText("active").waitFor();
    expect(await keyRow.getByRole("button", { name: "Revoke" }).isVisible()).toBe(true);
    expect(await page.content()).not.toContain(apiSecret);
    expect(await keyRow.textContent()).toContain("every team");
    // A key limited to one team: chosen by name, listed with it.
    await page.getByLabel("Name").fill("e2e platform bot");
    await page.getByLabel("Limited to team").selectOption({ label: "Platform" });
    await page.getByRole("button", { name: "Create key" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "I have stored the key" }).click();
    const teamKeyRow = page.locator("[data-testid=api-keys-table] tbody tr", { hasText: "e2e platform bot" });
    await teamKeyRow.getByText("Platform", { exact: true }).waitFor();
    await shoot("45b-api-keys");

    // MCP servers: the empty list says the next step; one added (open to the team) and tested, its failure shown.
    await navigate("MCP servers", "MCP servers");
    await page.getByText("No MCP servers yet. Add one", { exact: false }).waitFor();
    await page.getByRole("button", { name: "Add MCP server" }).click();
    const mcpDialog = page.getByRole("dialog");
    await mcpDialog.getByLabel("Name").fill("papers");
    await mcpDialog.getByLabel("URL").fill("http://127.0.0.1:1/mcp");
    await mcpDialog.getByRole("group", { name: "Teams" }).getByLabel("Platform").check();
    await shoot("46a-mcp-server-form");
    await mcpDialog.getByRole("button", { name: "Add MCP server" }).click();
    await mcpDialog.waitFor({ state: "detached" });
    const mcpRow = page.locator('tr[data-mcp-server-name="papers"]');
    await mcpRow.getByText("team Platform").waitFor();
    await mcpRow.getByRole("button", { name: "Test" }).click();
    await mcpRow.getByTestId("mcp-test-error").waitFor();
    // Every column in view at 1280 px, the last 24 hours' traffic included (no sideways scroll behind the actions).
    expect(await page.getByTestId("mcp-servers-table").evaluate((table) => table.parentElement!.scrollWidth <= table.parentElement!.clientWidth)).toBe(true);
    await shoot("46-mcp-servers");
    // Edited in place: the form holds the saved values; a price set there is stored in micro-USD.
    await mcpRow.getByRole("button", { name: "Edit" }).click();
    const editMcp = page.getByRole("dialog");
    expect(await editMcp.getByLabel("URL").inputValue()).toBe("http://127.0.0.1:1/mcp");
    expect(await editMcp.getByRole("group", { name: "Teams" }).getByLabel("Platform").isChecked()).toBe(true);
    await editMcp.getByLabel("Price per call (USD)").fill("0.002");
    await shoot("46b-mcp-server-edit");
    await editMcp.getByRole("button", { name: "Save" }).click();
    await editMcp.waitFor({ state: "detached" });
    const [papers] = await database.handle.db.select({ pricePerCall: mcpServers.pricePerCall, teams: mcpServers.teams }).from(mcpServers).where(eq(mcpServers.name, "papers"));
    expect(papers!.pricePerCall).toBe(2000);
    expect(papers!.teams).toHaveLength(1);
  });

  test("on a 390 px phone every page fits: the sidebar is a drawer behind a menu button, lists are row cards with their actions", async () => {
    const mobile = await browser.newPage({ viewport: phone });
    try {
      await signIn(mobile, "root", "root-password");
      await shoot("20-phone-dashboard", mobile);
      const menu = mobile.getByRole("button", { name: "Open menu" });
      expect(await menu.getAttribute("aria-expanded")).toBe("false");
      expect(await mobile.getByRole("navigation").isVisible()).toBe(false);
      await menu.click();
      await mobile.getByRole("navigation").waitFor();
      await shoot("21-phone-menu", mobile);
      await mobile.keyboard.press("Escape");
      await mobile.getByRole("navigation").waitFor({ state: "hidden" });

      await navigate("Tokens", "Tokens", mobile);
      // The search box and the pager fit a phone; the oldest token is found by its name.
      await mobile.getByTestId("tokens-pager-range").getByText(/^1–20 of 2\d$/).waitFor();
      await shoot("22a-phone-tokens-pager", mobile);
      await mobile.getByLabel("Search tokens").fill("laptop");
      await mobile.getByTestId("tokens-pager-range").getByText("1–1 of 1").waitFor();
      const tokenCard = mobile.locator('[data-row-card][data-token-name="e2e laptop"]');
      await tokenCard.waitFor();
      for (const action of ["Edit", "Enable", "Delete"]) expect(await tokenCard.getByRole("button", { name: action }).isVisible()).toBe(true);
      expect(await tokenCard.textContent()).toContain("Used");
      await shoot("22-phone-tokens", mobile);
      await tokenCard.getByRole("button", { name: "Edit" }).click();
      await mobile.getByRole("dialog").waitFor();
      await shoot("23-phone-token-form", mobile);
      // Further down the form: the response cache, then the token's MCP access naming the registered server.
      const phoneTokenForm = mobile.getByRole("dialog");
      await phoneTokenForm.getByLabel("Response cache TTL (seconds)").scrollIntoViewIfNeeded();
      await shoot("23b-phone-token-form-cache", mobile);
      const mcpAccess = phoneTokenForm.getByTestId("token-mcp-access");
      await mcpAccess.getByText("Registered: papers.", { exact: false }).waitFor();
      await mcpAccess.getByRole("button", { name: "Save MCP access" }).scrollIntoViewIfNeeded();
      await shoot("23c-phone-token-mcp-access", mobile);
      await mobile.keyboard.press("Escape");

      await navigate("Channels", "Channels", mobile);
      const channelCard = mobile.locator('[data-row-card][data-channel-name="fake upstream"]');
      await channelCard.waitFor();
      for (const action of ["Test", "Edit", "Disable", "Delete"]) expect(await channelCard.getByRole("button", { name: action }).isVisible()).toBe(true);
      expect(await channelCard.getByTestId("channel-latency").textContent()).toMatch(/^avg \d+ ms$/);
      await shoot("24-phone-channels", mobile);
      // The channel form on a phone: the preset picker when editing, and the fetched models to pick from.
      await channelCard.getByRole("button", { name: "Edit" }).click();
      const phoneChannelForm = mobile.getByRole("dialog");
      // The saved preset shows once the preset list has loaded.
      await phoneChannelForm.getByLabel("Preset").locator('option[value="vllm"]').waitFor({ state: "attached" });
      expect(await phoneChannelForm.getByLabel("Preset").inputValue()).toBe("vllm");
      await phoneChannelForm.getByRole("button", { name: "Fetch models from upstream" }).click();
      await phoneChannelForm.getByTestId("fetched-models").getByRole("button", { name: "text-embedding-3-small" }).waitFor();
      await shoot("24a-phone-channel-fetch-models", mobile);
      await mobile.keyboard.press("Escape");
      await phoneChannelForm.waitFor({ state: "detached" });
      await navigate("Logs", "Logs", mobile);
      await mobile.locator('[data-row-card][data-log-model="gpt-4o-mini"]').first().waitFor();
      expect(await mobile.getByRole("link", { name: "Export CSV" }).isVisible()).toBe(true);
      await shoot("25-phone-logs", mobile);
      await navigate("Users", "Users", mobile);
      await mobile.getByLabel("Search users").fill("alice");
      const aliceCard = mobile.locator('[data-row-card][data-user-name="alice"]');
      await mobile.getByTestId("users-pager-range").getByText("1–1 of 1").waitFor();
      await aliceCard.getByRole("button", { name: "Subtract" }).click();
      await mobile.getByRole("dialog").getByLabel("Note").waitFor();
      await shoot("27a-phone-user-subtract", mobile);
      await mobile.keyboard.press("Escape");
      // The pages of teams, audit, API keys and MCP servers: row cards with their actions.
      await navigate("Teams", "Teams", mobile);
      const teamCard = mobile.locator('[data-row-card][data-team-name="Platform"]');
      await teamCard.waitFor();
      expect(await teamCard.getByRole("link", { name: "Members & usage" }).isVisible()).toBe(true);
      for (const action of ["Disable", "Delete"]) expect(await teamCard.getByRole("button", { name: action }).isVisible()).toBe(true);
      expect(await teamCard.textContent()).toContain("Budget");
      await shoot("31-phone-teams", mobile);
      await teamCard.getByRole("link", { name: "Members & usage" }).click();
      await mobile.getByRole("heading", { level: 1, name: "Platform" }).waitFor();
      const memberCard = mobile.locator('[data-row-card][data-member-name="alice"]');
      await memberCard.waitFor();
      expect(await memberCard.getByRole("button", { name: "Remove" }).isVisible()).toBe(true);
      await shoot("32-phone-team-detail", mobile);
      // The team's settings on a phone: the budget's period, zone and thresholds as stored, stacked on screen.
      await mobile.getByRole("button", { name: "Edit team" }).click();
      const editTeam = mobile.getByRole("dialog");
      expect(await editTeam.getByLabel("Budget period").inputValue()).toBe("monthly");
      expect(await editTeam.getByLabel("Time zone").inputValue()).toBe("Europe/Paris");
      expect(await editTeam.getByLabel("Alert at (%)").inputValue()).toBe("50, 90");
      await shoot("32b-phone-team-edit", mobile);
      await mobile.keyboard.press("Escape");
      await editTeam.waitFor({ state: "detached" });
      await mobile.getByRole("button", { name: "Add member" }).click();
      await mobile.getByRole("dialog").getByLabel("Find a user").waitFor();
      await shoot("32a-phone-team-add-member", mobile);
      await mobile.keyboard.press("Escape");
      await navigate("Audit log", "Audit log", mobile);
      await mobile.getByLabel("Action").fill("team.create");
      const auditCard = mobile.locator("[data-testid=audit-table] [data-row-card]", { hasText: "team.create" });
      await auditCard.waitFor();
      expect(await auditCard.getByRole("button", { name: "Changes" }).isVisible()).toBe(true);
      expect(await mobile.getByRole("link", { name: "Export CSV" }).isVisible()).toBe(true);
      await shoot("33-phone-audit", mobile);
      await navigate("API keys", "API keys", mobile);
      const keyCard = mobile.locator("[data-testid=api-keys-table] [data-row-card]", { hasText: "e2e reporting" });
      await keyCard.waitFor();
      expect(await keyCard.getByRole("button", { name: "Revoke" }).isVisible()).toBe(true);
      await shoot("34-phone-api-keys", mobile);
      await navigate("MCP servers", "MCP servers", mobile);
      const mcpCard = mobile.locator('[data-row-card][data-mcp-server-name="papers"]');
      await mcpCard.waitFor();
      for (const action of ["Test", "Edit", "Disable", "Delete"]) expect(await mcpCard.getByRole("button", { name: action }).isVisible()).toBe(true);
      await shoot("35-phone-mcp-servers", mobile);
      await mobile.getByRole("button", { name: "Add MCP server" }).click();
      await mobile.getByRole("dialog").getByRole("group", { name: "Teams" }).getByLabel("Platform").waitFor();
      await shoot("35a-phone-mcp-server-form", mobile);
      await mobile.keyboard.press("Escape");
      for (const [label, heading, name] of [
        ["Models & prices", "Models & prices", "26-phone-models"],
        ["Users", "Users", "27-phone-users"],
        ["Quick start", "Quick start", "28-phone-quick-start"],
        ["Spend alerts", "Spend alerts", "29-phone-alerts"],
      ] as const) {
        await navigate(label, heading, mobile);
        await shoot(name, mobile);
      }
    } finally {
      await mobile.close();
    }
  });

  test("the sign-in page downloads under 100 KiB of script (compressed), and none of the charts", async () => {
    const visitor = await browser.newPage({ viewport: laptop });
    try {
      const scripts: { url: string; bytes: number }[] = [];
      visitor.on("response", async (response) => {
        if (response.request().resourceType() !== "script") return;
        const sizes = await response.request().sizes();
        scripts.push({ url: response.url(), bytes: sizes.responseBodySize });
      });
      await visitor.goto(`${baseUrl}/login`, { waitUntil: "networkidle" });
      await visitor.getByRole("button", { name: "Sign in" }).waitFor();
      const total = scripts.reduce((sum, script) => sum + script.bytes, 0);
      expect(scripts.length).toBeGreaterThan(0);
      expect(total).toBeLessThan(100 * 1024);
      expect(scripts.some((script) => script.url.includes("usage-chart"))).toBe(false);
      await shoot("30-sign-in", visitor);
    } finally {
      await visitor.close();
    }
  });
});
