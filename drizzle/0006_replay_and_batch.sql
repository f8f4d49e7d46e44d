ALTER TABLE `tool_calls` ADD `replay_of` text;--> statement-breakpoint
ALTER TABLE `tool_calls` ADD `batch_id` text;--> statement-breakpoint
CREATE INDEX `tool_calls_replay_of_idx` ON `tool_calls` (`replay_of`,`seq`) WHERE "tool_calls"."replay_of" IS NOT NULL;