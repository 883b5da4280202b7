CREATE TABLE "webhook_attempts" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"delivery_id" text NOT NULL,
	"webhook_id" text NOT NULL,
	"attempt" integer NOT NULL,
	"requested_at" timestamp(3) with time zone NOT NULL,
	"duration_ms" double precision NOT NULL,
	"response_status" integer,
	"response_body" text,
	"error_class" text,
	"next_attempt_at" timestamp(3) with time zone
);
--> statement-breakpoint
CREATE TABLE "webhook_deliveries" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"webhook_id" text NOT NULL,
	"event_id" text NOT NULL,
	"event_name" text NOT NULL,
	"status" text NOT NULL,
	"attempts" integer NOT NULL,
	"next_attempt_at" timestamp(3) with time zone,
	"lease_until" timestamp(3) with time zone,
	"last_response_status" integer,
	"last_error_class" text,
	"created_at" timestamp(3) with time zone NOT NULL,
	"updated_at" timestamp(3) with time zone NOT NULL,
	"completed_at" timestamp(3) with time zone
);
--> statement-breakpoint
CREATE TABLE "webhooks" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"name" text NOT NULL,
	"url" text NOT NULL,
	"events" jsonb NOT NULL,
	"description" text,
	"method" text NOT NULL,
	"auth_type" text NOT NULL,
	"auth_config" jsonb NOT NULL,
	"headers" jsonb NOT NULL,
	"filters" jsonb NOT NULL,
	"retry_delay_ms" integer NOT NULL,
	"timeout_ms" integer NOT NULL,
	"max_retries" integer NOT NULL,
	"tags" jsonb NOT NULL,
	"environment" text NOT NULL,
	"status" text NOT NULL,
	"disabled_reason" text,
	"secret" text NOT NULL,
	"secret_start" text NOT NULL,
	"previous_secret" text,
	"previous_secret_expires_at" timestamp(3) with time zone,
	"created_at" timestamp(3) with time zone NOT NULL,
	"updated_at" timestamp(3) with time zone NOT NULL,
	"created_by" text
);
--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "dispatched_at" timestamp(3) with time zone;--> statement-breakpoint
-- Events written before webhooks existed had no subscription to reach: mark them fanned out.
UPDATE "events" SET "dispatched_at" = "occurred_at";--> statement-breakpoint
ALTER TABLE "webhook_attempts" ADD CONSTRAINT "webhook_attempts_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_attempts" ADD CONSTRAINT "webhook_attempts_delivery_id_fk" FOREIGN KEY ("delivery_id") REFERENCES "webhook_deliveries"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_webhook_id_fk" FOREIGN KEY ("webhook_id") REFERENCES "webhooks"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_event_id_fk" FOREIGN KEY ("event_id") REFERENCES "events"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhooks" ADD CONSTRAINT "webhooks_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "webhook_attempts_delivery_id_idx" ON "webhook_attempts" USING btree ("delivery_id","attempt");--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_deliveries_webhook_id_event_id_unique" ON "webhook_deliveries" USING btree ("webhook_id","event_id");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_status_next_attempt_at_idx" ON "webhook_deliveries" USING btree ("status","next_attempt_at");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_organization_id_webhook_id_idx" ON "webhook_deliveries" USING btree ("organization_id","webhook_id","id");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_completed_at_idx" ON "webhook_deliveries" USING btree ("completed_at");--> statement-breakpoint
CREATE INDEX "webhooks_organization_id_idx" ON "webhooks" USING btree ("organization_id","id");--> statement-breakpoint
CREATE INDEX "webhooks_organization_id_status_idx" ON "webhooks" USING btree ("organization_id","status");--> statement-breakpoint
CREATE INDEX "events_undispatched_idx" ON "events" USING btree ("id") WHERE dispatched_at IS NULL;