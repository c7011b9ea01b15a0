import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from "node:zlib";
import { startConsole, type ConsoleUnderTest } from "./console-fixture";

// For tests and hooks of this file (the preload's setDefaultTimeout does not reach them): a fresh PGlite
// takes seconds to migrate on a busy machine. A bound on hangs, not a tuned timing.
setDefaultTimeout(60_000);

const dist = mkdtempSync(join(tmpdir(), "tollgate-web-"));
const compressible = "export const greeting = 'hello';\n".repeat(200);
let harness: ConsoleUnderTest;

beforeAll(async () => {
  mkdirSync(join(dist, "assets"));
  writeFileSync(join(dist, "index.html"), "<!doctype html><div id=root></div>");
  writeFileSync(join(dist, "assets", "index-abc123.js"), "console.log(1)");
  writeFileSync(join(dist, "favicon.svg"), "<svg/>");
  // As the build writes them (apps/web/vite.config.ts): compressed variants beside a hashed script.
  writeFileSync(join(dist, "assets", "app-def456.js"), compressible);
  writeFileSync(join(dist, "assets", "app-def456.js.br"), brotliCompressSync(compressible));
  writeFileSync(join(dist, "assets", "app-def456.js.gz"), gzipSync(compressible));
  writeFileSync(join(tmpdir(), "outside-secret.txt"), "secret");
  harness = await startConsole({ webDistDir: dist });
});
afterAll(async () => {
  await harness.close();
  rmSync(dist, { recursive: true, force: true });
});

const get = (path: string, accept = "text/html,*/*", method = "GET") =>
  harness.console.handle(new Request(`http://console.test${path}`, { method, headers: { accept } }));

describe("serving the SPA", () => {
  test("client routes get index.html, revalidated, with security headers", async () => {
    for (const path of ["/", "/tokens", "/logs/anything"]) {
      const response = (await get(path))!;
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toContain("text/html");
      expect(response.headers.get("cache-control")).toBe("no-cache");
      expect(response.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
      expect(await response.text()).toContain('<div id=root>');
    }
  });

  test("hashed assets are cached for a year; other files are revalidated", async () => {
    const asset = (await get("/assets/index-abc123.js", "*/*"))!;
    expect(asset.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(asset.headers.get("content-type")).toContain("javascript");
    expect(await asset.text()).toBe("console.log(1)");
    expect((await get("/favicon.svg", "image/*"))!.headers.get("cache-control")).toBe("no-cache");
    const head = (await get("/assets/index-abc123.js", "*/*", "HEAD"))!;
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
  });

  test("a script with precompressed variants is sent as brotli or gzip, whichever the browser accepts, and as is otherwise", async () => {
    const fetchWith = (acceptEncoding: string | null) =>
      harness.console.handle(new Request("http://console.test/assets/app-def456.js", { headers: acceptEncoding === null ? {} : { "accept-encoding": acceptEncoding } }));
    const brotli = (await fetchWith("gzip, deflate, br, zstd"))!;
    expect(brotli.headers.get("content-encoding")).toBe("br");
    expect(brotli.headers.get("vary")).toBe("accept-encoding");
    expect(brotli.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(brotli.headers.get("content-type")).toContain("javascript");
    const brotliBytes = new Uint8Array(await brotli.arrayBuffer());
    expect(Number(brotli.headers.get("content-length"))).toBe(brotliBytes.length);
    expect(brotliBytes.length).toBeLessThan(compressible.length / 10);
    expect(brotliDecompressSync(brotliBytes).toString()).toBe(compressible);

    for (const acceptEncoding of ["gzip", "br;q=0, gzip"]) {
      const gzip = (await fetchWith(acceptEncoding))!;
      expect(gzip.headers.get("content-encoding")).toBe("gzip");
      expect(gunzipSync(new Uint8Array(await gzip.arrayBuffer())).toString()).toBe(compressible);
    }
    const plain = (await fetchWith(null))!;
    expect(plain.headers.get("content-encoding")).toBeNull();
    expect(await plain.text()).toBe(compressible);
    // A file without variants is sent as is whatever the browser accepts.
    const unvaried = (await harness.console.handle(new Request("http://console.test/assets/index-abc123.js", { headers: { "accept-encoding": "br, gzip" } })))!;
    expect(unvaried.headers.get("content-encoding")).toBeNull();
    expect(await unvaried.text()).toBe("console.log(1)");
  });

  test("the host gets null for /v1, unknown non-HTML requests, other methods and paths outside the folder", async () => {
    expect(await get("/v1/models")).toBeNull();
    expect(await get("/v1")).toBeNull();
    expect(await get("/assets/missing.js", "*/*")).toBeNull();
    expect(await get("/anything", "application/json")).toBeNull();
    expect(await get("/tokens", "text/html", "POST")).toBeNull();
    const traversal = await get("/..%2Foutside-secret.txt", "*/*");
    expect(traversal).toBeNull();
  });

  test("/trpc is answered by the console, even for unknown procedures", async () => {
    const response = (await get("/trpc/nope.nothing", "application/json"))!;
    expect(response.status).toBe(404);
    expect(response.headers.get("cache-control")).toBe("no-store");
  });

  test("without a build, HTML requests get a page that says how to build it", async () => {
    const unbuilt = await startConsole({ webDistDir: join(dist, "does-not-exist") });
    try {
      const response = (await unbuilt.console.handle(new Request("http://console.test/", { headers: { accept: "text/html" } })))!;
      expect(response.status).toBe(503);
      expect(await response.text()).toContain("bun run --cwd apps/web build");
    } finally {
      await unbuilt.close();
    }
  });
});
