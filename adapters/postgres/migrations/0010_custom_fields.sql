CREATE TABLE "case_types" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"key" text NOT NULL,
	"label" text NOT NULL,
	"description" text,
	"default_tlp" integer,
	"default_pap" integer,
	"custom_fields" jsonb NOT NULL,
	"lifecycle" text,
	"archived_at" timestamp(3) with time zone,
	"created_at" timestamp(3) with time zone NOT NULL,
	"updated_at" timestamp(3) with time zone NOT NULL,
	"created_by" text
);
--> statement-breakpoint
CREATE TABLE "custom_field_values" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"entity" text NOT NULL,
	"record_id" text COLLATE "C" NOT NULL,
	"lookup" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "custom_fields" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"key" text NOT NULL,
	"label" text NOT NULL,
	"description" text,
	"scopes" jsonb NOT NULL,
	"type" text NOT NULL,
	"options" jsonb NOT NULL,
	"bounds" jsonb NOT NULL,
	"required" jsonb NOT NULL,
	"default_value" jsonb,
	"tlp_floor" integer,
	"filterable" boolean NOT NULL,
	"archived_at" timestamp(3) with time zone,
	"created_at" timestamp(3) with time zone NOT NULL,
	"updated_at" timestamp(3) with time zone NOT NULL,
	"created_by" text
);
--> statement-breakpoint
ALTER TABLE "case_types" ADD CONSTRAINT "case_types_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "custom_field_values" ADD CONSTRAINT "custom_field_values_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "custom_fields" ADD CONSTRAINT "custom_fields_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "case_types_organization_id_key_unique" ON "case_types" USING btree ("organization_id","key");--> statement-breakpoint
CREATE INDEX "case_types_organization_id_idx" ON "case_types" USING btree ("organization_id","id");--> statement-breakpoint
CREATE INDEX "custom_field_values_lookup_idx" ON "custom_field_values" USING btree ("lookup","record_id");--> statement-breakpoint
CREATE INDEX "custom_field_values_record_idx" ON "custom_field_values" USING btree ("organization_id","record_id");--> statement-breakpoint
CREATE UNIQUE INDEX "custom_fields_organization_id_key_unique" ON "custom_fields" USING btree ("organization_id","key");--> statement-breakpoint
CREATE INDEX "custom_fields_organization_id_idx" ON "custom_fields" USING btree ("organization_id","id");--> statement-breakpoint
-- Backfill: the cases' existing custom field values, as the case repository indexes them (adapters/resources/custom-field-values.ts).
INSERT INTO "custom_field_values" ("id", "organization_id", "entity", "record_id", "lookup")
SELECT DISTINCT m.record_id || '.' || m.key || '=' || m.text, m.org, 'case', m.record_id, m.org || '|case|' || m.key || '|' || m.text FROM (
	SELECT r.id AS record_id, r.organization_id AS org, f.key AS key,
		CASE WHEN jsonb_typeof(x.v) IN ('number', 'boolean') OR (jsonb_typeof(x.v) = 'string' AND length(x.v #>> '{}') <= 200) THEN x.v #>> '{}' END AS text
	FROM "cases" r
	CROSS JOIN LATERAL jsonb_each(r.custom_fields) f
	CROSS JOIN LATERAL (SELECT f.value AS v WHERE jsonb_typeof(f.value) <> 'array' UNION ALL SELECT e FROM jsonb_array_elements(CASE WHEN jsonb_typeof(f.value) = 'array' THEN f.value ELSE '[]'::jsonb END) e) x
) m WHERE m.text IS NOT NULL;
--> statement-breakpoint
-- Backfill: the alerts' existing custom field values, as the alert repository indexes them (adapters/resources/custom-field-values.ts).
INSERT INTO "custom_field_values" ("id", "organization_id", "entity", "record_id", "lookup")
SELECT DISTINCT m.record_id || '.' || m.key || '=' || m.text, m.org, 'alert', m.record_id, m.org || '|alert|' || m.key || '|' || m.text FROM (
	SELECT r.id AS record_id, r.organization_id AS org, f.key AS key,
		CASE WHEN jsonb_typeof(x.v) IN ('number', 'boolean') OR (jsonb_typeof(x.v) = 'string' AND length(x.v #>> '{}') <= 200) THEN x.v #>> '{}' END AS text
	FROM "alerts" r
	CROSS JOIN LATERAL jsonb_each(r.custom_fields) f
	CROSS JOIN LATERAL (SELECT f.value AS v WHERE jsonb_typeof(f.value) <> 'array' UNION ALL SELECT e FROM jsonb_array_elements(CASE WHEN jsonb_typeof(f.value) = 'array' THEN f.value ELSE '[]'::jsonb END) e) x
) m WHERE m.text IS NOT NULL;
