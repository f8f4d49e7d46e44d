CREATE TABLE `fault_rules` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`enabled` integer DEFAULT 0 NOT NULL,
	`tool` text NOT NULL,
	`session_id` text,
	`kind` text NOT NULL,
	`params` text NOT NULL,
	`probability` real DEFAULT 1 NOT NULL,
	`seed` integer NOT NULL,
	`draws` integer DEFAULT 0 NOT NULL,
	`max_hits` integer,
	`hits` integer DEFAULT 0 NOT NULL,
	`expires_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `tool_calls` ADD `session_seq` integer;--> statement-breakpoint
ALTER TABLE `tool_calls` ADD `served_from` text;