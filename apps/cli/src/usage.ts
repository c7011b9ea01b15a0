import { channelTypeIds } from "@tollgate/upstream";

const header = `Usage: bun run admin -- <resource> <command> [flags]

Amounts are in USD (up to 6 decimals); prices are USD per 1M tokens. Add --json to any command
for one line of JSON (amounts as decimal USD strings). Exit codes: 0 ok, 2 bad arguments or
unknown id, 1 other failures.
`;

const sections = {
  user: `Users:
  user create --name NAME [--group GROUP] [--balance USD|unlimited] [--admin]
      [--password-env VAR | --password-prompt | --password PASSWORD]
      [--budget USD|unlimited] [--period none|daily|weekly|monthly] [--time-zone ZONE]
      [--alert-at 50,80,100|default|none]
      --admin requires a password (at least 8 characters): from the variable VAR, or asked for (without
      echo at a terminal, the first line of standard input when piped) when --admin is given without
      one or with --password-prompt; --password puts it on the command line. Without --balance spending is not limited
      by a balance (cap it per token with --quota). --budget caps what all of the user's tokens spend
      together, in all or per --period (resets at midnight in --time-zone, an IANA name, default UTC).
  user budget NAME_OR_ID [--budget USD|unlimited] [--period P] [--time-zone ZONE] [--alert-at ...]
      Changes a user's budget; a new period or time zone starts the period's count afresh.
  user update NAME_OR_ID [--models a,b|none] [--ips IP_OR_CIDR,...|none] [--rpm N|none] [--tpm N|none]
      [--may-create-tokens true|false]
      Limits that bind every token of the user, those the user creates later too: a token can narrow
      them, never widen them. --rpm and --tpm are shared by all of the user's tokens together; none
      removes a limit. With --may-create-tokens false the user cannot create tokens in the console.
  user list
  user topup NAME_OR_ID --amount USD [--reason TEXT]
  user deduct NAME_OR_ID --amount USD --reason TEXT [--allow-negative]
      Subtracts from the balance (recorded in its history with the reason); refused when the balance
      would go below zero, unless --allow-negative.
`,
  channel: `Channels:
  channel add --name NAME --base-url URL (--key KEY | --key-env VAR) --models a,b
      [--type ${channelTypeIds().join("|")}] [--preset VENDOR]
      [--map public=upstream[,public2=upstream2]] [--priority N] [--weight N] [--group G[,G2]]
      [--api-version V] [--first-byte-timeout-ms N] [--idle-timeout-ms N] [--responses-api yes|no]
      [--structured-output tool|native] [--auto-cache-breakpoints yes|no] [--builtin-tool TOOL=USD[,TOOL2=USD]]
      [--region REGION] [--project PROJECT] [--location LOCATION]
      --preset (openai-compatible: openai, deepseek, qwen, zhipu, moonshot, mistral, groq, xai,
      openrouter, vllm, ollama; anthropic, Anthropic-compatible endpoints for Claude Code:
      zhipu-anthropic, moonshot-anthropic, deepseek-anthropic, qwen-anthropic) fills --base-url and
      --type and applies the vendor's quirks. --map maps a public
      model to the upstream's name (for azure-openai: to the deployment name). --responses-api says
      whether the upstream serves OpenAI's Responses API itself (default: yes for the openai, groq, xai
      and openrouter presets and Azure API versions from 2025-03-01 or v1; otherwise /v1/responses is
      translated through chat completions). --structured-output (anthropic) carries response_format
      json_schema as a forced tool (tool, the default, every Claude model) or as Anthropic's own
      output_config.format (native, the models that have structured outputs). --auto-cache-breakpoints
      (anthropic) marks the tool definitions and the system prompt of OpenAI-format requests as
      prompt-cache breakpoints, for clients that send no cache_control. --builtin-tool lets
      clients use a built-in tool that runs on the upstream account (web_search, web_fetch, file_search,
      code_interpreter, code_execution, image_generation, mcp), billed at USD per call; without it such
      a tool is refused with 400. --region (bedrock, required) is the AWS region requests are signed
      for; without --base-url the channel calls https://bedrock-runtime.REGION.amazonaws.com. A bedrock
      key is an access key as JSON, {"accessKeyId":"AKIA...","secretAccessKey":"...","sessionToken":"..."}
      (sessionToken optional; best given with --key-env), or a Bedrock API key (sent as a bearer token).
      A vertex channel's key is a Google service-account JSON key (e.g.
      --key-env GOOGLE_KEY after GOOGLE_KEY="$(cat key.json)"), exchanged for access tokens; --project
      (default: the key's project_id) and --location (default us-central1; global) say where its
      models run, and its base URL is https://aiplatform.googleapis.com.
      Higher --priority is tried first (default 0); --weight shares traffic in a tier (default 1);
      groups default to "default". The key is stored encrypted and never printed in full;
      --key-env VAR reads it from that environment variable, so it is not on the command line.
  channel list
  channel models ID | channel models --type TYPE --base-url URL (--key KEY | --key-env VAR) [--preset VENDOR]
      Lists the models the upstream serves (its model list call), for a saved channel or for values not
      yet saved; Azure OpenAI channels cannot list their deployments with an API key.
  channel enable ID | channel disable ID | channel delete ID
`,
  mcp: `MCP servers (the gateway's /mcp endpoint):
  mcp add --name NAME (--url URL | --command "PROGRAM ARG...") [--transport streamable-http|sse|stdio]
      [--credential-env VAR | --credential SECRET] [--credential-header HEADER] [--group G[,G2]]
      [--teams TEAM[,TEAM2]] [--price-per-call USD]
      Registers an upstream MCP server; its tools are NAME__TOOL behind /mcp, and /mcp/NAME serves it
      alone. The credential is sent as "Authorization: Bearer SECRET" (or in --credential-header) and
      stored encrypted. A --command (stdio) server runs on the gateway's host only where
      MCP_STDIO_ENABLED=true. --group: the routing groups whose tokens may use it; --teams (names
      or ids): the teams whose keys may use it (with neither: everyone). --price-per-call bills each tools/call.
  mcp list
  mcp test NAME_OR_ID     connects, initializes and lists the server's tools
  mcp remove NAME_OR_ID
      A token reaches MCP servers only once granted: token update ID --mcp-servers NAME,NAME|*
      (--mcp-tools NAME__TOOL,NAME__* narrows it to those tools); none takes it away.
`,
  model: `Models:
  model price --model MODEL --input USD_PER_1M --output USD_PER_1M [--cache-read USD_PER_1M]
              [--cache-write USD_PER_1M] [--cache-write-1h USD_PER_1M]
      Sets the whole price of a model: prompt tokens read from the upstream's prompt cache, written
      to it for 5 minutes, written to it for 1 hour; a cache price left out is the input price
      (--cached is the older name of --cache-read).
  model price --model MODEL --unit image|audio_second|character|request --unit-price USD
              [--image-price SIZE[/QUALITY]=USD,...]
      Bills the model per image (by size/quality, --unit-price for other sizes), per audio second,
      per 1M characters of input (speech) or per request instead of per token.
      [--default-max-tokens N]: completion tokens held against quota when a request names no
      max_tokens (default: the global setting).
      [--cache-hit USD]: billed for each answer served from the response cache (default 0).
  model fallback --model MODEL --to MODEL[,MODEL...] | --clear
      Models tried in order when every channel of MODEL fails (a retryable or channel fault) or the
      prompt exceeds its context window; each is used only where the caller's model list allows it,
      at its own price. The model must be priced first.
  model update --model MODEL --context-window TOKENS|none
      The model's context window: a prompt estimated past it goes to its fallback models.
  model list      models served by any channel or priced, with their prices
`,
  token: `Tokens:
  token create --user NAME_OR_ID --name NAME [--team NAME_OR_ID] [--models a,b] [--quota USD|unlimited]
      [--expires ISO8601|never] [--ip 1.2.3.4,10.0.0.0/8,::1,2001:db8::/32] [--group G] [--rpm N]
      [--tpm N] [--period none|daily|weekly|monthly] [--time-zone ZONE] [--alert-at 50,80,100|default|none]
      Prints the key once. Quota defaults to unlimited, expiry to never. With --period the quota is
      per period (daily, weekly from Monday, monthly) and resets at midnight in --time-zone (an IANA
      name such as Europe/Paris; default UTC). --alert-at: spend alerts at these percentages of the
      quota (default: the alert settings' thresholds; none: no alerts). A date alone or a time
      without an offset is UTC. --rpm: requests per minute; --tpm: tokens (prompt + completion) per
      minute, counted when each request ends. Both default to no limit. With --team the token
      belongs to the team: its spend also counts against the team's budget and limits.
      [--cache-ttl SECONDS|off] [--cache-scope user|token|team|group]: identical calls of the token are
      answered from the response cache for SECONDS (default off); shared by the owner's tokens (user),
      by this token only (token), by every token of the token's team (team) or by everyone in the
      token's routing group (group); team and group are set by administrators only.
  token update ID [--rpm N|none] [--tpm N|none] [--quota USD|unlimited] [--period P] [--time-zone ZONE]
                  [--alert-at ...] [--cache-ttl SECONDS|off] [--cache-scope user|token|team|group]
                  [--mcp-servers NAME[,NAME]|*|none] [--mcp-tools SERVER__TOOL[,SERVER__*]|none]
      Changes a token's limits; none removes a per-minute one. A new period or time zone starts the
      period's count afresh.
      The limits set here (and a disable) are ceilings for the token's owner: in the console they may
      narrow them and widen them back, never past what was set here, and not enable a disabled token.
  token list [--user NAME_OR_ID]
  token show ID
  token roll ID [--grace 24h|30m|7d|0]
      Gives the token a new key (printed once), keeping its settings and usage history. The old key
      keeps working for the grace period (default 24h; 0 refuses it at once), then is refused everywhere.
  token enable ID | token disable ID | token delete ID
`,
  team: `Teams:
  team create --name NAME [--description TEXT] [--oidc-group GROUP] [--budget USD|unlimited]
      [--period none|daily|weekly|monthly] [--time-zone ZONE] [--models a,b] [--ips IP_OR_CIDR,...]
      [--rpm N] [--tpm N]
      A team's budget, model list, IP list and per-minute limits bind all of its tokens together, nested
      inside each token's own limits and its owner's (the tighter one wins). --oidc-group: members of
      this identity-provider group join the team when they sign in with single sign-on.
  team update NAME_OR_ID [--name NAME] [--description TEXT] [--oidc-group GROUP|none] [--budget USD|unlimited]
      [--period P] [--time-zone ZONE] [--models a,b|none] [--ips ...|none] [--rpm N|none] [--tpm N|none]
      [--status enabled|disabled]
  team list
  team show NAME_OR_ID
  team delete NAME_OR_ID
      Refused while tokens belong to the team.
  team member add NAME_OR_ID --user NAME_OR_ID [--role team_admin|member]
  team member remove NAME_OR_ID --user NAME_OR_ID
      A team admin manages the team's tokens and members in the console and sees its usage and logs.
`,
  alerts: `Spend alerts:
  alerts settings [--webhook-url URL|""] [--webhook-secret-env VAR | --webhook-secret SECRET]
                  [--thresholds 50,80,100]
      Where spend alerts are POSTed (JSON, signed with HMAC-SHA256 of the secret: see the README) and
      the default thresholds, in percent of a token's quota or a user's budget (per period, or in all).
      Without flags, prints the settings; the secret is shown as its last 4 characters only.
      --webhook-secret-env VAR reads it from that variable, so that it is not on the command line.
  alerts list [--limit N]
      Recent alerts, newest first, with their delivery state.
`,
  logs: `Request logs:
  logs retention [--days N]
      Days a request-log row is kept (default 90; 0 keeps every row). The gateways purge older rows
      hourly: whole monthly partitions dropped, the rest deleted in small batches. Without --days,
      prints the setting.
`,
  audit: `Audit log:
  audit verify
      Walks the audit log's hash chain; exit code 1 names the first row that was edited, or whose
      predecessor was deleted.
  audit list [--actor NAME] [--action token.create|token.] [--object TYPE] [--object-id ID]
             [--from DATE] [--to DATE] [--limit N] [--cursor ID]
      Newest first; --cursor continues where the previous page ended.
  audit retention [--days N | --forever]
      How long audit rows are kept (without flags, prints it). Older rows are purged by the server
      (once an hour) or by "audit purge"; "audit verify" still accepts the chain afterwards.
  audit purge
`,
  apikey: `Management API keys (/api/v1, see the README):
  apikey create --name NAME [--scope read|write] [--team TEAM]
      Prints the key once (only its hash is stored). read: GET requests only (default); write: all.
  apikey list
  apikey revoke ID
`,
} as const;

export type Resource = keyof typeof sections;

export function isResource(name: string): name is Resource {
  return Object.hasOwn(sections, name);
}

/** The usage of one resource, or of everything. */
export function usageText(resource?: Resource): string {
  if (resource !== undefined) return `${header}\n${sections[resource]}`;
  return `${header}\n${Object.values(sections).join("\n")}\n  help [RESOURCE]   this text\n`;
}
