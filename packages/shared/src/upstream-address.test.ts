import { describe, expect, test } from "bun:test";
import { checkResolvedAddress, upstreamAddressRefusal } from "./upstream-address";

const strict = { allowPrivateNetworks: false };

describe("upstream address policy", () => {
  test("link-local and cloud metadata addresses are refused in every spelling", () => {
    for (const url of [
      "http://169.254.169.254/latest/meta-data",
      "http://169.254.0.1:8080",
      "http://0xa9fea9fe/",
      "http://[fd00:ec2::254]/",
      "http://[fe80::1]/",
      "http://[::ffff:169.254.169.254]/",
      "http://[::ffff:a9fe:a9fe]/",
      "http://[64:ff9b::a9fe:a9fe]/",
      "http://100.100.100.200/",
      "http://metadata.google.internal/computeMetadata/v1",
      "http://METADATA.google.internal./",
    ]) {
      expect({ url, refusal: upstreamAddressRefusal(url) }).toEqual({ url, refusal: "Must not be a link-local or cloud metadata address" });
    }
  });

  test("loopback and private ranges are allowed by default and refused when private networks are off", () => {
    for (const url of ["http://127.0.0.1:11434", "http://localhost:8000", "http://10.1.2.3", "http://192.168.0.10", "http://[::1]:8000", "http://[fd12::1]", "http://[::ffff:10.0.0.1]"]) {
      expect({ url, refusal: upstreamAddressRefusal(url) }).toEqual({ url, refusal: null });
      expect(upstreamAddressRefusal(url, strict)).toContain("private-network");
    }
  });

  test("public addresses and names are allowed under either policy", () => {
    for (const url of ["https://api.openai.com/v1", "http://8.8.8.8", "https://[2606:4700::1111]"]) {
      expect(upstreamAddressRefusal(url, strict)).toBeNull();
    }
  });

  test("a name that resolves to a metadata address is refused at connect time", async () => {
    const resolve = async () => ["203.0.113.9", "169.254.169.254"];
    expect(await checkResolvedAddress("http://innocent.example/v1", undefined, resolve)).toContain("link-local or cloud metadata");
    expect(await checkResolvedAddress("http://innocent.example/v1", undefined, async () => ["10.0.0.5"])).toBeNull();
    expect(await checkResolvedAddress("http://innocent.example/v1", strict, async () => ["10.0.0.5"])).toContain("private-network");
  });

  test("localhost resolves through the system resolver and stays allowed by default", async () => {
    expect(await checkResolvedAddress("http://localhost:1/")).toBeNull();
    expect(await checkResolvedAddress("http://localhost:1/", strict)).toContain("private-network");
  });
});
