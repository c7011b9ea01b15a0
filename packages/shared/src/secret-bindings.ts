/**
 * Where each sealed secret lives, as the secret box's binding (AES-GCM additional data): a value opens only
 * in the row it was sealed for, so one copied into another channel, or into the webhook setting, fails.
 */
export function channelKeyBinding(channelId: number): string {
  return `channels:api_key:${channelId}`;
}

/** The spend-alert webhook's HMAC secret (settings row `spend_alert_webhook_secret`). */
export const WEBHOOK_SECRET_BINDING = "settings:spend_alert_webhook_secret";

/** An upstream MCP server's credential (mcp_servers.credential_encrypted). */
export function mcpServerCredentialBinding(serverId: number): string {
  return `mcp_servers:credential:${serverId}`;
}
