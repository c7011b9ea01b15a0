import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const root = resolve(import.meta.dir, "../../..");
const gatewaySource = join(root, "apps/gateway/src");

/** Every import and export specifier of a TypeScript file, type-only ones included. */
function specifiersOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const pattern = /(?:^|[\s;])(?:import|export)\s[^;]*?\sfrom\s*["']([^"']+)["']|import\s*\(\s*["']([^"']+)["']\s*\)|(?:^|[\s;])import\s*["']([^"']+)["']/g;
  return [...text.matchAll(pattern)].map((match) => (match[1] ?? match[2] ?? match[3])!);
}

function typeScriptFiles(folder: string): string[] {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** `file`'s imports that reach into one of `folders` (absolute), by relative path, as "file -> specifier". */
function importsInto(files: string[], folders: string[], packageNames: string[] = []): string[] {
  const found: string[] = [];
  for (const file of files) {
    for (const specifier of specifiersOf(file)) {
      const target = specifier.startsWith(".") ? resolve(dirname(file), specifier) : null;
      const intoFolder = target !== null && folders.some((folder) => target === folder || target.startsWith(`${folder}/`));
      const intoPackage = packageNames.some((name) => specifier === name || specifier.startsWith(`${name}/`));
      if (intoFolder || intoPackage) found.push(`${relative(root, file)} -> ${specifier}`);
    }
  }
  return found;
}

const appPackageNames = readdirSync(join(root, "apps")).flatMap((app) => {
  try {
    return [(JSON.parse(readFileSync(join(root, "apps", app, "package.json"), "utf8")) as { name: string }).name];
  } catch {
    return [];
  }
});

describe("layering", () => {
  test("the router never imports the exchange: nothing under routing/ imports routes/, pipeline/ or codecs/", () => {
    const forbidden = ["routes", "pipeline", "codecs"].map((folder) => join(gatewaySource, folder));
    expect(importsInto(typeScriptFiles(join(gatewaySource, "routing")), forbidden)).toEqual([]);
  });

  test("packages/upstream never imports an app, by path or by package name", () => {
    expect(appPackageNames).toContain("@tollgate/gateway");
    expect(importsInto(typeScriptFiles(join(root, "packages/upstream/src")), [join(root, "apps")], appPackageNames)).toEqual([]);
  });

  test("the check sees a forbidden import when there is one", () => {
    const probe = join(gatewaySource, "routing/forward-with-failover.ts");
    expect(specifiersOf(probe)).toContain("../errors");
    expect(importsInto([probe], [join(gatewaySource)])).not.toEqual([]);
  });
});
