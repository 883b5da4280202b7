CREATE TABLE "rate_limits" (
	"key" text PRIMARY KEY NOT NULL,
	"state" jsonb,
	"expires_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "rate_limits_expires_at_idx" ON "rate_limits" USING btree ("expires_at");