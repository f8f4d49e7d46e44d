DROP TRIGGER `tool_calls_search_after_update`;
--> statement-breakpoint
DROP TRIGGER `tool_calls_search_after_delete`;
--> statement-breakpoint
DROP TABLE `tool_calls_search`;
--> statement-breakpoint
DROP TRIGGER `tool_calls_id_search_after_update`;
--> statement-breakpoint
DROP TRIGGER `tool_calls_id_search_after_delete`;
--> statement-breakpoint
DROP TABLE `tool_calls_id_search`;
--> statement-breakpoint
UPDATE `search_state` SET `indexed_upto` = 0;
--> statement-breakpoint
CREATE VIRTUAL TABLE `tool_calls_search` USING fts5(`error_trigrams`, `arguments_trigrams`, `output_trigrams`, `stdout_trigrams`, `stderr_trigrams`, tokenize = 'trigram', detail = none, content = '', columnsize = 0);
--> statement-breakpoint
INSERT INTO `tool_calls_search` (`tool_calls_search`, `rank`) VALUES ('automerge', 0);
--> statement-breakpoint
CREATE TRIGGER `tool_calls_search_after_update` AFTER UPDATE OF `error`, `arguments`, `output`, `stdout`, `stderr` ON `tool_calls`
	WHEN (OLD.`error` IS NOT NEW.`error` OR OLD.`arguments` IS NOT NEW.`arguments` OR OLD.`output` IS NOT NEW.`output` OR OLD.`stdout` IS NOT NEW.`stdout` OR OLD.`stderr` IS NOT NEW.`stderr`) AND OLD.`seq` <= (SELECT `indexed_upto` FROM `search_state`) BEGIN
	INSERT INTO `tool_calls_search` (`tool_calls_search`, `rowid`, `error_trigrams`, `arguments_trigrams`, `output_trigrams`, `stdout_trigrams`, `stderr_trigrams`) VALUES ('delete', OLD.`seq`, substr(OLD.`error`, 1, 65536), substr(OLD.`arguments`, 1, 65536), substr(OLD.`output`, 1, 65536), substr(OLD.`stdout`, 1, 65536), substr(OLD.`stderr`, 1, 65536));
	INSERT INTO `tool_calls_search` (`rowid`, `error_trigrams`, `arguments_trigrams`, `output_trigrams`, `stdout_trigrams`, `stderr_trigrams`) VALUES (NEW.`seq`, substr(NEW.`error`, 1, 65536), substr(NEW.`arguments`, 1, 65536), substr(NEW.`output`, 1, 65536), substr(NEW.`stdout`, 1, 65536), substr(NEW.`stderr`, 1, 65536));
END;
--> statement-breakpoint
CREATE TRIGGER `tool_calls_search_after_delete` AFTER DELETE ON `tool_calls`
	WHEN OLD.`seq` <= (SELECT `indexed_upto` FROM `search_state`) BEGIN
	INSERT INTO `tool_calls_search` (`tool_calls_search`, `rowid`, `error_trigrams`, `arguments_trigrams`, `output_trigrams`, `stdout_trigrams`, `stderr_trigrams`) VALUES ('delete', OLD.`seq`, substr(OLD.`error`, 1, 65536), substr(OLD.`arguments`, 1, 65536), substr(OLD.`output`, 1, 65536), substr(OLD.`stdout`, 1, 65536), substr(OLD.`stderr`, 1, 65536));
END;
--> statement-breakpoint
CREATE VIRTUAL TABLE `tool_calls_id_search` USING fts5(`id_trigrams`, `tool_call_id_trigrams`, tokenize = 'trigram', detail = none, content = '', columnsize = 0);
--> statement-breakpoint
INSERT INTO `tool_calls_id_search` (`tool_calls_id_search`, `rank`) VALUES ('automerge', 0);
--> statement-breakpoint
CREATE TRIGGER `tool_calls_id_search_after_update` AFTER UPDATE OF `id`, `tool_call_id` ON `tool_calls`
	WHEN (OLD.`id` IS NOT NEW.`id` OR OLD.`tool_call_id` IS NOT NEW.`tool_call_id`) AND OLD.`seq` <= (SELECT `indexed_upto` FROM `search_state`) BEGIN
	INSERT INTO `tool_calls_id_search` (`tool_calls_id_search`, `rowid`, `id_trigrams`, `tool_call_id_trigrams`) VALUES ('delete', OLD.`seq`, CASE WHEN typeof(OLD.`id`) = 'blob' THEN lower(hex(substr(OLD.`id`, 13))) ELSE substr(OLD.`id`, -8) END, substr(OLD.`tool_call_id`, -8));
	INSERT INTO `tool_calls_id_search` (`rowid`, `id_trigrams`, `tool_call_id_trigrams`) VALUES (NEW.`seq`, CASE WHEN typeof(NEW.`id`) = 'blob' THEN lower(hex(substr(NEW.`id`, 13))) ELSE substr(NEW.`id`, -8) END, substr(NEW.`tool_call_id`, -8));
END;
--> statement-breakpoint
CREATE TRIGGER `tool_calls_id_search_after_delete` AFTER DELETE ON `tool_calls`
	WHEN OLD.`seq` <= (SELECT `indexed_upto` FROM `search_state`) BEGIN
	INSERT INTO `tool_calls_id_search` (`tool_calls_id_search`, `rowid`, `id_trigrams`, `tool_call_id_trigrams`) VALUES ('delete', OLD.`seq`, CASE WHEN typeof(OLD.`id`) = 'blob' THEN lower(hex(substr(OLD.`id`, 13))) ELSE substr(OLD.`id`, -8) END, substr(OLD.`tool_call_id`, -8));
END;
