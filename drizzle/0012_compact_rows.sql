-- Smaller rows (see lib/db/schema.ts and lib/db/compact-columns.ts). Rows written from here on hold
-- `stages` and `attempts` as bytes (a BLOB keeps its bytes in a TEXT column: no table rebuild);
-- older rows keep their JSON text, which the decoders still read. Succeeded calls, most of them,
-- leave the status index: it holds the other statuses only. The list indexes no longer name
-- `seq`: every index entry ends in the rowid already, so it was stored twice. Ids that are canonical UUIDs are
-- written as their 16 bytes (lib/db/trace-id.ts): the id search triggers read a blob's tail as
-- text (the index itself is unchanged), and calls not finished yet get the new form at once;
-- finished calls keep their text ids, which every read by id still finds.
DROP INDEX `tool_calls_tool_seq_idx`;--> statement-breakpoint
DROP INDEX `tool_calls_status_seq_idx`;--> statement-breakpoint
DROP INDEX `tool_calls_session_seq_idx`;--> statement-breakpoint
DROP INDEX `tool_calls_replay_of_idx`;--> statement-breakpoint
CREATE INDEX `tool_calls_tool_seq_idx` ON `tool_calls` (`tool`);--> statement-breakpoint
CREATE INDEX `tool_calls_status_seq_idx` ON `tool_calls` (`status`) WHERE status != 'succeeded';--> statement-breakpoint
CREATE INDEX `tool_calls_session_seq_idx` ON `tool_calls` (`session_id`);--> statement-breakpoint
CREATE INDEX `tool_calls_replay_of_idx` ON `tool_calls` (`replay_of`) WHERE "tool_calls"."replay_of" IS NOT NULL;
--> statement-breakpoint
DROP TRIGGER `tool_calls_id_search_after_update`;
--> statement-breakpoint
DROP TRIGGER `tool_calls_id_search_after_delete`;
--> statement-breakpoint
CREATE TRIGGER `tool_calls_id_search_after_update` AFTER UPDATE OF `id`, `tool_call_id` ON `tool_calls`
	WHEN (OLD.`id` IS NOT NEW.`id` OR OLD.`tool_call_id` IS NOT NEW.`tool_call_id`) AND OLD.`seq` <= (SELECT `indexed_upto` FROM `search_state`) BEGIN
	INSERT INTO `tool_calls_id_search` (`tool_calls_id_search`, `rowid`, `id_trigrams`, `tool_call_id_trigrams`) VALUES ('delete', OLD.`seq`, CASE WHEN typeof(OLD.`id`) = 'blob' THEN lower(hex(substr(OLD.`id`, 11))) ELSE substr(OLD.`id`, -12) END, substr(OLD.`tool_call_id`, -12));
	INSERT INTO `tool_calls_id_search` (`rowid`, `id_trigrams`, `tool_call_id_trigrams`) VALUES (NEW.`seq`, CASE WHEN typeof(NEW.`id`) = 'blob' THEN lower(hex(substr(NEW.`id`, 11))) ELSE substr(NEW.`id`, -12) END, substr(NEW.`tool_call_id`, -12));
END;
--> statement-breakpoint
CREATE TRIGGER `tool_calls_id_search_after_delete` AFTER DELETE ON `tool_calls`
	WHEN OLD.`seq` <= (SELECT `indexed_upto` FROM `search_state`) BEGIN
	INSERT INTO `tool_calls_id_search` (`tool_calls_id_search`, `rowid`, `id_trigrams`, `tool_call_id_trigrams`) VALUES ('delete', OLD.`seq`, CASE WHEN typeof(OLD.`id`) = 'blob' THEN lower(hex(substr(OLD.`id`, 11))) ELSE substr(OLD.`id`, -12) END, substr(OLD.`tool_call_id`, -12));
END;
--> statement-breakpoint
UPDATE `tool_calls` SET `id` = unhex(replace(`id`, '-', ''))
	WHERE `status` IN ('running', 'awaiting_approval') AND status != 'succeeded' AND typeof(`id`) = 'text' AND `id` GLOB '[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]';
