ALTER TABLE "tokens" ADD COLUMN "granted_limits" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
-- Who set an existing token's limits was not recorded: they become its ceilings (fail closed). Its owner may
-- still narrow them; an administrator may lift them.
UPDATE "tokens" SET "granted_limits" = jsonb_strip_nulls(jsonb_build_object(
  'quotaLimit', "quota_limit",
  'expiresAt', to_char("expires_at" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
  'allowedModels', CASE WHEN cardinality("allowed_models") > 0 THEN to_jsonb("allowed_models") END,
  'allowedIps', CASE WHEN cardinality("allowed_ips") > 0 THEN to_jsonb("allowed_ips") END,
  'rpmLimit', "rpm_limit",
  'tpmLimit', "tpm_limit",
  'disabled', CASE WHEN "status" = 'disabled' THEN true END
))
WHERE "quota_limit" IS NOT NULL OR "expires_at" IS NOT NULL OR cardinality("allowed_models") > 0
  OR cardinality("allowed_ips") > 0 OR "rpm_limit" IS NOT NULL OR "tpm_limit" IS NOT NULL OR "status" = 'disabled';
