import { describe, expect, test } from "bun:test";
import { renderToStaticMarkup } from "react-dom/server";
import { ResponseCacheFields, responseCacheTtlFrom, responseCacheValue } from "./response-cache-fields";

const ignore = () => {};

describe("ResponseCacheFields", () => {
  test("an administrator is offered the group scope, an owner only their own and the token's", () => {
    const value = responseCacheValue({ responseCacheTtlSeconds: 600, responseCacheScope: "user" });
    const forAdmin = renderToStaticMarkup(<ResponseCacheFields value={value} onChange={ignore} isAdmin errors={{}} />);
    const forOwner = renderToStaticMarkup(<ResponseCacheFields value={value} onChange={ignore} isAdmin={false} errors={{}} />);
    expect(forAdmin).toContain('value="group"');
    expect(forOwner).not.toContain('value="group"');
    expect(forOwner).toContain('value="600"');
  });

  test("an owner sees a group scope an administrator set, and cannot change it", () => {
    const markup = renderToStaticMarkup(
      <ResponseCacheFields value={{ ttl: "60", scope: "group" }} onChange={ignore} isAdmin={false} errors={{}} />,
    );
    expect(markup).toContain('value="group"');
    expect(markup).toMatch(/<select[^>]*disabled/);
  });

  test("an empty TTL turns the cache off, a whole number sets it, anything else is refused", () => {
    expect(responseCacheTtlFrom("")).toBeNull();
    expect(responseCacheTtlFrom("300")).toBe(300);
    expect(responseCacheTtlFrom("1.5")).toBeUndefined();
    expect(responseCacheValue(undefined)).toEqual({ ttl: "", scope: "user" });
  });
});
