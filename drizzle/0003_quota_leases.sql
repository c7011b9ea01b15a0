CREATE TABLE "quota_leases" (
	"subject" text NOT NULL,
	"instance_id" text NOT NULL,
	"amount" bigint NOT NULL,
	"heartbeat_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "quota_leases_subject_instance_id_pk" PRIMARY KEY("subject","instance_id")
);
