import { describe, expect, test } from "bun:test";
import { resolveClientAddress } from "./client-address";
import { createIpAllowList } from "./policy/ip-allow-list";

describe("client address", () => {
  const proxies = createIpAllowList(["10.0.0.0/8"]);

  test("the socket address wins when it is not a trusted proxy", () => {
    expect(resolveClientAddress("198.51.100.4", "1.2.3.4", proxies)).toBe("198.51.100.4");
    expect(resolveClientAddress("198.51.100.4", "1.2.3.4", null)).toBe("198.51.100.4");
  });

  test("behind trusted proxies the right-most untrusted hop is the client", () => {
    expect(resolveClientAddress("10.0.0.2", "6.6.6.6, 203.0.113.9, 10.0.0.7", proxies)).toBe("203.0.113.9");
    expect(resolveClientAddress("10.0.0.2", null, proxies)).toBe("10.0.0.2");
  });
});
