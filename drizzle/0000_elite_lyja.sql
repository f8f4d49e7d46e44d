CREATE TABLE `tool_calls` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`tool_call_id` text NOT NULL,
	`session_id` text,
	`actor` text NOT NULL,
	`tool` text NOT NULL,
	`status` text NOT NULL,
	`side_effect` text,
	`arguments` text,
	`sealed_arguments` blob NOT NULL,
	`created_at` integer NOT NULL,
	`finished_at` integer,
	`latency_ms` real,
	`stages` text NOT NULL,
	`attempts` text NOT NULL,
	`attempt_count` integer DEFAULT 0 NOT NULL,
	`output` text,
	`stdout` text,
	`stderr` text,
	`exit_code` integer,
	`error` text,
	`error_code` text,
	`model_message` text,
	`retried` integer DEFAULT 0 NOT NULL,
	`fell_back` integer DEFAULT 0 NOT NULL,
	`truncated` integer DEFAULT 0 NOT NULL,
	`faulted` integer DEFAULT 0 NOT NULL,
	`replayed` integer DEFAULT 0 NOT NULL,
	`metadata` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tool_calls_id_unique` ON `tool_calls` (`id`);--> statement-breakpoint
CREATE INDEX `tool_calls_tool_seq_idx` ON `tool_calls` (`tool`,`seq`);--> statement-breakpoint
CREATE INDEX `tool_calls_status_seq_idx` ON `tool_calls` (`status`,`seq`);--> statement-breakpoint
CREATE INDEX `tool_calls_session_seq_idx` ON `tool_calls` (`session_id`,`seq`);--> statement-breakpoint
CREATE INDEX `tool_calls_created_at_idx` ON `tool_calls` (`created_at`);--> statement-breakpoint
CREATE INDEX `tool_calls_failed_tool_idx` ON `tool_calls` (`tool`) WHERE "tool_calls"."status" = 'failed';