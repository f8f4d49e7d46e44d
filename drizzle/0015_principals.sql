CREATE TABLE `access_keys` (
	`ref` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`kind` text NOT NULL,
	`name` text NOT NULL,
	`role` text NOT NULL,
	`token_hash` text,
	`permissions` text,
	`tools` text,
	`created_at` integer NOT NULL,
	`last_used_at` integer,
	`revoked_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `access_keys_id_unique` ON `access_keys` (`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `access_keys_token_hash_unique` ON `access_keys` (`token_hash`);--> statement-breakpoint
CREATE TABLE `login_sessions` (
	`id_hash` text PRIMARY KEY NOT NULL,
	`key_ref` integer NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`ended_at` integer,
	`address` text
);
--> statement-breakpoint
CREATE TABLE `audit_log` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`at` integer NOT NULL,
	`principal` text NOT NULL,
	`kind` text NOT NULL,
	`target` text,
	`detail` text NOT NULL,
	`address` text,
	`prev_hash` text NOT NULL,
	`hash` text NOT NULL
);
--> statement-breakpoint
ALTER TABLE `tool_calls` ADD `principal_ref` integer;--> statement-breakpoint
-- Written by hand: drizzle-kit does not model triggers. The audit trail is append-only: an entry
-- is never changed or removed through SQLite (retention does not touch it); one edited or removed
-- behind these triggers' back breaks the hash chain, which GET /api/v1/audit/verify finds.
CREATE TRIGGER `audit_log_no_update` BEFORE UPDATE ON `audit_log` BEGIN
	SELECT RAISE(ABORT, 'the audit trail is append-only');
END;
--> statement-breakpoint
CREATE TRIGGER `audit_log_no_delete` BEFORE DELETE ON `audit_log` BEGIN
	SELECT RAISE(ABORT, 'the audit trail is append-only');
END;
