// A do-nothing OTLP/HTTP collector for BENCH_TRACING=1, run as its own process (so that its CPU is not the
// gateway's): accepts every POST /v1/traces with 200 and drops it. Prints {"url":...} once listening.
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: Number(process.env.PORT ?? 0),
  async fetch(request) {
    await request.arrayBuffer();
    return Response.json({});
  },
});
console.log(JSON.stringify({ url: `http://127.0.0.1:${server.port}` }));
