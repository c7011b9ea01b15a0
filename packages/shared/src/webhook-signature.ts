/**
 * Signature of a webhook body: hex HMAC-SHA256, keyed by the secret an admin set, over
 * `<timestamp>.<body>` (Unix seconds, a dot, the raw body), sent as `x-tollgate-signature: sha256=<hex>`
 * with the timestamp in `x-tollgate-timestamp`. Binding the timestamp lets a receiver refuse replays.
 */
export async function signWebhookBody(secret: string, timestamp: number, body: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`${timestamp}.${body}`));
  return `sha256=${Buffer.from(mac).toString("hex")}`;
}
