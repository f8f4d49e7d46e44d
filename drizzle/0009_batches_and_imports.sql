CREATE TABLE `batches` (
	`id` text PRIMARY KEY NOT NULL,
	`session_id` text,
	`created_at` integer NOT NULL,
	`assistant_text` text,
	`assistant_model` text,
	`assistant_truncated` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
ALTER TABLE `tool_calls` ADD `imported` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Written by hand: drizzle-kit does not model triggers. A batch's message goes with its last
-- call: deleting a call (by hand, by session, by retention) deletes its batch row once no call of
-- that batch is left. Most calls' batches have no row: the probe by primary key finds nothing and
-- the NOT EXISTS is never run. A batch of a session looks for its calls through the session index.
CREATE TRIGGER `batches_after_call_delete_in_session` AFTER DELETE ON `tool_calls`
	WHEN OLD.`batch_id` IS NOT NULL AND OLD.`session_id` IS NOT NULL BEGIN
	DELETE FROM `batches` WHERE `id` = OLD.`batch_id` AND NOT EXISTS (
		SELECT 1 FROM `tool_calls` WHERE `session_id` = OLD.`session_id` AND `batch_id` = OLD.`batch_id`);
END;
--> statement-breakpoint
CREATE TRIGGER `batches_after_call_delete` AFTER DELETE ON `tool_calls`
	WHEN OLD.`batch_id` IS NOT NULL AND OLD.`session_id` IS NULL BEGIN
	DELETE FROM `batches` WHERE `id` = OLD.`batch_id` AND NOT EXISTS (
		SELECT 1 FROM `tool_calls` WHERE `batch_id` = OLD.`batch_id`);
END;
