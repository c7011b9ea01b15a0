-- Limits an administrator sets on a user, binding every token of the user. No trigger change is needed:
-- tollgate_notify_change (0010) calls an update of users "usage" only when nothing but the balance, lifetime
-- spend and period columns moved, so a change of these columns is a "change" and every gateway evicts the
-- cached user at once.
ALTER TABLE "users" ADD COLUMN "allowed_models" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "allowed_ips" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "rpm_limit" integer;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "tpm_limit" integer;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "may_create_tokens" boolean DEFAULT true NOT NULL;