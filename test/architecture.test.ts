import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";

const root = join(import.meta.dir, "..");

/** The one app allowed to import the others: it composes them into the process. */
const COMPOSITION_ROOT = "server";

const sourceFile = /\.(ts|tsx|mts|js|mjs|jsx)$/;
const transpiler = new Bun.Transpiler({ loader: "tsx" });

/** A module of the workspace: an app or a package, with the name other modules import it by. */
interface Workspace {
  kind: "apps" | "packages";
  folder: string;
  name: string;
}

function workspaces(): Workspace[] {
  return (["apps", "packages"] as const).flatMap((kind) =>
    readdirSync(join(root, kind)).flatMap((folder) => {
      try {
        const manifest = JSON.parse(readFileSync(join(root, kind, folder, "package.json"), "utf8")) as { name: string };
        return [{ kind, folder, name: manifest.name }];
      } catch {
        return [];
      }
    }),
  );
}

function sourceFiles(folder: string): string[] {
  return readdirSync(folder).flatMap((entry) => {
    if (entry === "node_modules" || entry === "dist") return [];
    const path = join(folder, entry);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return sourceFile.test(entry) ? [path] : [];
  });
}

/**
 * The modules a file loads when it runs, as Bun sees them: `import type`, `export type` and imports whose
 * names are all `type` are left out (they are erased), everything else counts, dynamic imports included.
 */
function runtimeImports(source: string): string[] {
  return transpiler.scanImports(source).map((entry) => entry.path);
}

/** The app an import specifier reaches from `file` (by package name or by relative path), or null. */
function appReachedBy(specifier: string, file: string, apps: Workspace[]): string | null {
  if (specifier.startsWith(".")) {
    const target = relative(root, resolve(dirname(file), specifier)).split(sep);
    return target[0] === "apps" && target[1] ? target[1] : null;
  }
  const app = apps.find((candidate) => specifier === candidate.name || specifier.startsWith(`${candidate.name}/`));
  return app?.folder ?? null;
}

/**
 * Every run-time import that breaks the layering: an app (other than the composition root) importing
 * another app, or a package importing any app. `files` maps a path under the repository to its text.
 */
function layeringViolations(files: Map<string, string>, modules: Workspace[]): string[] {
  const apps = modules.filter((module) => module.kind === "apps");
  const violations: string[] = [];
  for (const [file, source] of files) {
    const [kind, folder] = relative(root, file).split(sep);
    if ((kind !== "apps" && kind !== "packages") || !folder) continue;
    if (kind === "apps" && folder === COMPOSITION_ROOT) continue;
    for (const specifier of runtimeImports(source)) {
      const app = appReachedBy(specifier, file, apps);
      if (app === null || (kind === "apps" && app === folder)) continue;
      violations.push(`${relative(root, file)} imports ${specifier} (apps/${app}) at run time`);
    }
  }
  return violations;
}

function repositorySources(): Map<string, string> {
  const files = new Map<string, string>();
  for (const module of workspaces()) {
    for (const file of sourceFiles(join(root, module.kind, module.folder))) files.set(file, readFileSync(file, "utf8"));
  }
  return files;
}

describe("layering", () => {
  const modules = workspaces();

  test("no app imports another app at run time, and no package imports an app (apps/server composes them)", () => {
    expect(layeringViolations(repositorySources(), modules)).toEqual([]);
  });

  test("the check catches an app importing another app or a package importing an app, and allows types and the composition root", () => {
    const file = (path: string) => join(root, path);
    const sources = new Map([
      [file("apps/console/src/a.ts"), 'import { createApp } from "@tollgate/gateway/app";\ncreateApp;'],
      [file("apps/console/src/b.ts"), 'export { x } from "../../cli/src/x";'],
      [file("apps/gateway/src/c.ts"), 'const late = await import("@tollgate/console");'],
      [file("packages/db/src/d.ts"), 'import "@tollgate/gateway/logger";'],
      [file("apps/web/src/e.ts"), 'import type { AppRouter } from "@tollgate/console";\nimport { type Console } from "@tollgate/console";'],
      [file("apps/server/src/f.ts"), 'import { createConsole } from "@tollgate/console";\ncreateConsole;'],
      [file("apps/gateway/src/g.ts"), 'import { errors } from "./errors";\nimport { users } from "@tollgate/db";\nerrors; users;'],
    ]);
    expect(layeringViolations(sources, modules)).toEqual([
      "apps/console/src/a.ts imports @tollgate/gateway/app (apps/gateway) at run time",
      "apps/console/src/b.ts imports ../../cli/src/x (apps/cli) at run time",
      "apps/gateway/src/c.ts imports @tollgate/console (apps/console) at run time",
      "packages/db/src/d.ts imports @tollgate/gateway/logger (apps/gateway) at run time",
    ]);
  });
});

/** Test files and their support modules may set up a database; the package's own code may not. */
const testOnly = /(\.test\.tsx?|-test-support\.ts|-fuzz-support\.ts)$/;

/**
 * Run-time imports of the database (the schema package or Drizzle) from `folder`'s non-test sources:
 * packages/upstream translates and sends, and whoever calls it loads channels (packages/admin, the gateway).
 */
function databaseImports(files: Map<string, string>, folder: string): string[] {
  const found: string[] = [];
  for (const [file, source] of files) {
    const path = relative(root, file);
    if (!path.startsWith(`${folder}/`) || testOnly.test(path)) continue;
    for (const specifier of runtimeImports(source)) {
      if (specifier === "@tollgate/db" || specifier.startsWith("@tollgate/db/") || specifier.startsWith("drizzle-orm")) found.push(`${path} imports ${specifier}`);
    }
  }
  return found;
}

describe("packages/upstream", () => {
  test("imports no database at run time: the prober is given a decrypted channel, packages/admin loads it", () => {
    expect(databaseImports(repositorySources(), "packages/upstream")).toEqual([]);
    const manifest = JSON.parse(readFileSync(join(root, "packages/upstream/package.json"), "utf8")) as { dependencies?: Record<string, string> };
    expect(Object.keys(manifest.dependencies ?? {})).not.toContain("@tollgate/db");
    expect(Object.keys(manifest.dependencies ?? {})).not.toContain("drizzle-orm");
  });

  test("the check catches a database import and leaves types and tests alone", () => {
    const file = (path: string) => join(root, path);
    const sources = new Map([
      [file("packages/upstream/src/a.ts"), 'import { channels } from "@tollgate/db";\nchannels;'],
      [file("packages/upstream/src/b.ts"), 'import { eq } from "drizzle-orm";\neq;'],
      [file("packages/upstream/src/c.ts"), 'import type { Database } from "@tollgate/db";'],
      [file("packages/upstream/src/d.test.ts"), 'import { channels } from "@tollgate/db";\nchannels;'],
      [file("packages/admin/src/e.ts"), 'import { channels } from "@tollgate/db";\nchannels;'],
    ]);
    expect(databaseImports(sources, "packages/upstream")).toEqual(["packages/upstream/src/a.ts imports @tollgate/db", "packages/upstream/src/b.ts imports drizzle-orm"]);
  });
});
