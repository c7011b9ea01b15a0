import { statSync } from "node:fs";
import { join, normalize, sep } from "node:path";

/** Vite's hashed output: safe to cache forever, a new build gets new names. */
const HASHED_ASSETS_PREFIX = "/assets/";

const htmlSecurityHeaders = {
  "content-security-policy":
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin",
  "x-frame-options": "DENY",
};

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The file under `root` that a URL path names, or null (outside the folder, missing, a folder). */
function resolveInside(root: string, pathname: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return null;
  }
  if (decoded.includes("\0")) return null;
  const candidate = normalize(join(root, decoded));
  if (candidate !== root && !candidate.startsWith(root.endsWith(sep) ? root : `${root}${sep}`)) return null;
  return isFile(candidate) ? candidate : null;
}

/** The build's precompressed variants (apps/web/vite.config.ts), in the order they are preferred. */
const encodings = [
  { name: "br", suffix: ".br" },
  { name: "gzip", suffix: ".gz" },
] as const;

/** Whether an Accept-Encoding header accepts a coding (present, and not with q=0). */
function accepts(acceptEncoding: string, coding: string): boolean {
  return acceptEncoding.split(",").some((part) => {
    const [name, ...parameters] = part.trim().split(";");
    if (name?.trim().toLowerCase() !== coding) return false;
    const quality = parameters.map((parameter) => parameter.trim()).find((parameter) => parameter.startsWith("q="));
    return quality === undefined || Number(quality.slice(2)) > 0;
  });
}

/**
 * The file, or its brotli or gzip variant written beside it at build time when the browser accepts one.
 * Vary tells caches that the answer depends on Accept-Encoding.
 */
function fileResponse(path: string, request: Request, headers: Record<string, string>): Response {
  const file = Bun.file(path);
  const acceptEncoding = request.headers.get("accept-encoding") ?? "";
  const encoding = encodings.find((candidate) => accepts(acceptEncoding, candidate.name) && isFile(path + candidate.suffix));
  const body = encoding ? Bun.file(path + encoding.suffix) : file;
  const allHeaders: Record<string, string> = { "content-type": file.type, "content-length": String(body.size), vary: "accept-encoding", ...headers };
  if (encoding) allHeaders["content-encoding"] = encoding.name;
  return new Response(request.method === "HEAD" ? null : body, { headers: allHeaders });
}

const notBuiltPage = `<!doctype html><meta charset="utf-8"><title>Tollgate console</title>
<body style="font-family:system-ui;margin:3rem;max-width:40rem">
<h1>The console is not built</h1>
<p>Build the web console once with <code>bun run --cwd apps/web build</code> (from the repository root) and reload.</p>
<p>The API is served at <code>/v1</code> all the same.</p></body>`;

/**
 * Serves the built SPA: files from `root` (hashed assets cached for a year, the rest revalidated) and
 * index.html for any other GET that accepts HTML (client-side routes). Returns null for everything else.
 */
export function createStaticHandler(root: string) {
  const base = normalize(root);
  return (request: Request, url: URL): Response | null => {
    const asset = url.pathname === "/" ? null : resolveInside(base, url.pathname);
    if (asset) {
      const cacheControl = url.pathname.startsWith(HASHED_ASSETS_PREFIX) ? "public, max-age=31536000, immutable" : "no-cache";
      return fileResponse(asset, request, { "cache-control": cacheControl, "x-content-type-options": "nosniff" });
    }
    const accept = request.headers.get("accept") ?? "";
    if (!accept.includes("text/html")) return null;
    const index = join(base, "index.html");
    if (!isFile(index)) {
      return new Response(request.method === "HEAD" ? null : notBuiltPage, {
        status: 503,
        headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store", ...htmlSecurityHeaders },
      });
    }
    return fileResponse(index, request, { "cache-control": "no-cache", ...htmlSecurityHeaders });
  };
}
