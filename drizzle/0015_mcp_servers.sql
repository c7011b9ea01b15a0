CREATE TABLE "mcp_servers" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"transport" text DEFAULT 'streamable-http' NOT NULL,
	"url" text,
	"command" text[],
	"credential_header" text,
	"credential_encrypted" text,
	"groups" text[] DEFAULT '{}'::text[] NOT NULL,
	"price_per_call" bigint,
	"enabled" boolean DEFAULT true NOT NULL,
	"cooldown_until" timestamp with time zone,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "mcp_servers_name_unique" UNIQUE("name")
);
--> statement-breakpoint
ALTER TABLE "request_logs" ADD COLUMN "response_bytes" integer;--> statement-breakpoint
ALTER TABLE "tokens" ADD COLUMN "mcp_servers" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "tokens" ADD COLUMN "mcp_tools" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
-- hand-written: begin
-- Every gateway instance caches the MCP servers: a change evicts them everywhere (tollgate_notify_change sends the id).
CREATE TRIGGER mcp_servers_notify AFTER INSERT OR UPDATE OR DELETE ON mcp_servers FOR EACH ROW EXECUTE FUNCTION tollgate_notify_change();
-- hand-written: end
