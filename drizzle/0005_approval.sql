ALTER TABLE `tool_calls` ADD `edited_arguments` text;--> statement-breakpoint
ALTER TABLE `tool_calls` ADD `sealed_edited_arguments` blob;--> statement-breakpoint
ALTER TABLE `tool_calls` ADD `approval` text;