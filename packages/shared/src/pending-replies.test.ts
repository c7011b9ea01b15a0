import { describe, expect, test } from "bun:test";
import { PendingReplies } from "./pending-replies";

function fakeThread() {
  const calls: string[] = [];
  return { calls, ref: () => calls.push("ref"), unref: () => calls.push("unref") };
}

describe("PendingReplies", () => {
  test("matches answers to requests by id, and keeps the thread ref'd only while one is owed", async () => {
    const thread = fakeThread();
    const replies = new PendingReplies<string>(thread);
    const sent: number[] = [];
    const first = replies.expect((id) => sent.push(id));
    const second = replies.expect((id) => sent.push(id));
    expect(sent).toEqual([1, 2]);
    expect(thread.calls).toEqual(["ref"]);
    replies.settle(2, { value: "two" });
    expect(await second).toBe("two");
    expect(thread.calls).toEqual(["ref"]);
    replies.settle(1, { error: new Error("refused") });
    const failure = await first.then(
      () => null,
      (error: Error) => error,
    );
    expect(failure?.message).toBe("refused");
    expect(thread.calls).toEqual(["ref", "unref"]);
    expect(replies.size).toBe(0);
  });

  test("a request that cannot be sent fails at once and leaves nothing waiting", async () => {
    const thread = fakeThread();
    const replies = new PendingReplies<number>(thread);
    const failure = await replies
      .expect(() => {
        throw new Error("could not be cloned");
      })
      .then(
        () => null,
        (error: Error) => error,
      );
    expect(failure?.message).toBe("could not be cloned");
    expect(replies.size).toBe(0);
    expect(thread.calls).toEqual(["ref", "unref"]);
  });

  test("ignores an answer nobody waits for", () => {
    const thread = fakeThread();
    const replies = new PendingReplies<number>(thread);
    replies.settle(7, { value: 1 });
    expect(thread.calls).toEqual([]);
  });

  test("fails every waiter at once when the thread dies, and later answers change nothing", async () => {
    const thread = fakeThread();
    const replies = new PendingReplies<number>(thread);
    const waiting = [replies.expect(() => {}), replies.expect(() => {})];
    replies.rejectAll(new Error("thread died"));
    const outcomes = await Promise.all(waiting.map((promise) => promise.then(String, (error: Error) => error.message)));
    expect(outcomes).toEqual(["thread died", "thread died"]);
    expect(thread.calls).toEqual(["ref", "unref"]);
    replies.settle(1, { value: 5 });
    expect(replies.size).toBe(0);
  });
});
