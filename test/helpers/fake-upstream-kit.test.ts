import { describe, expect, test } from "bun:test";
import { BehaviourQueue, presentedKey, readJsonOrText, RequestLog, startFakeServer } from "./fake-upstream-kit";

describe("the fake-upstream kit", () => {
  test("a fake server answers on 127.0.0.1 and a port of its own, and stops answering once closed", async () => {
    const first = startFakeServer({ fetch: (request) => new Response(new URL(request.url).pathname) });
    const second = startFakeServer({ fetch: () => new Response("second") });
    try {
      expect(first.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(first.origin).not.toBe(second.origin);
      expect(await (await fetch(`${first.origin}/v1/models`)).text()).toBe("/v1/models");
    } finally {
      await second.close();
    }
    await first.close();
    await expect(fetch(`${first.origin}/v1/models`)).rejects.toThrow();
  });

  test("queued behaviours answer first in first out, then the default, which can be changed", () => {
    const behaviours = new BehaviourQueue<string>("default");
    behaviours.enqueue("first");
    behaviours.enqueue("second");
    expect([behaviours.next(), behaviours.next(), behaviours.next()]).toEqual(["first", "second", "default"]);
    behaviours.setDefault("changed");
    expect(behaviours.next()).toBe("changed");
  });

  test("a wait for a number of requests resolves whether they came before or after it, and the log keeps one array", async () => {
    const log = new RequestLog<number>();
    const requests = log.requests;
    log.record(1);
    await log.waitFor(1);
    let second = false;
    const waiting = log.waitFor(2).then(() => (second = true));
    await Promise.resolve();
    expect(second).toBe(false);
    log.record(2);
    await waiting;
    expect(requests).toEqual([1, 2]);
    expect(log.requests).toBe(requests);
  });

  test("a body reads as JSON, as its text when it is not JSON, and as undefined when empty", async () => {
    const post = (body: string) => new Request("http://fake.test/", { method: "POST", body });
    expect(await readJsonOrText(post('{"model":"m"}'))).toEqual({ body: { model: "m" }, isInvalidJson: false });
    expect(await readJsonOrText(post("{not json"))).toEqual({ body: "{not json", isInvalidJson: true });
    expect(await readJsonOrText(post(""))).toEqual({ body: undefined, isInvalidJson: false });
  });

  test("the key presented is Azure's api-key header, else the bearer token, else none", () => {
    const withHeaders = (headers: Record<string, string>) => new Request("http://fake.test/", { headers });
    expect(presentedKey(withHeaders({ "api-key": "azure-key", authorization: "Bearer other" }))).toBe("azure-key");
    expect(presentedKey(withHeaders({ authorization: "Bearer sk-test" }))).toBe("sk-test");
    expect(presentedKey(withHeaders({}))).toBeUndefined();
  });
});
