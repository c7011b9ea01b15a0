// The floor for any JavaScript gateway: Bun.serve + fetch, forwarding the body and streaming the answer
// back, with no checks, parsing or accounting. Run as its own process with UPSTREAM_URL (".../v1");
// prints {"url":...} once listening.
const upstream = new URL(process.env.UPSTREAM_URL ?? "");
if (!upstream.host) throw new Error("UPSTREAM_URL is required");
const upstreamOrigin = upstream.origin;

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: Number(process.env.PORT ?? 0),
  idleTimeout: 0,
  async fetch(request) {
    const url = new URL(request.url);
    const answer = await fetch(`${upstreamOrigin}${url.pathname}${url.search}`, {
      method: request.method,
      headers: { "content-type": request.headers.get("content-type") ?? "application/json", authorization: "Bearer sk-bench-upstream" },
      body: request.method === "GET" ? undefined : await request.arrayBuffer(),
      signal: request.signal,
    });
    return new Response(answer.body, {
      status: answer.status,
      headers: { "content-type": answer.headers.get("content-type") ?? "application/json" },
    });
  },
});

console.log(JSON.stringify({ url: `http://127.0.0.1:${server.port}/v1` }));
process.on("SIGTERM", () => {
  server.stop(true);
  process.exit(0);
});

// A module, not a script: its top-level names stay its own.
export {};
