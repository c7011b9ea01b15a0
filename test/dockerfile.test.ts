import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { runtimeEnvDefaults } from "../scripts/runtime-env.mjs";

const root = join(import.meta.dir, "..");
const dockerfile = readFileSync(join(root, "Dockerfile"), "utf8");

/** apps/<name>/package.json and packages/<name>/package.json: every workspace of the lockfile. */
function workspaceManifests(): string[] {
  const manifests: string[] = [];
  for (const folder of ["apps", "packages"]) {
    for (const name of readdirSync(join(root, folder))) {
      if (existsSync(join(root, folder, name, "package.json"))) manifests.push(`${folder}/${name}/package.json`);
    }
  }
  return manifests.sort();
}

describe("Dockerfile", () => {
  test("copies every workspace's package.json before `bun install --frozen-lockfile` (a missing one fails the build)", () => {
    const copied = [...dockerfile.matchAll(/^COPY (\S+\/package\.json) /gm)].map((match) => match[1]!).sort();
    expect(copied).toEqual(workspaceManifests());
  });

  test("states the runtime defaults `npm start` gives the server", () => {
    for (const [name, value] of Object.entries(runtimeEnvDefaults)) expect(dockerfile).toMatch(new RegExp(`\\b${name}=${value}\\b`));
  });
});
