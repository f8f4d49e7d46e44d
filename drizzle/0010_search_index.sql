CREATE VIRTUAL TABLE `tool_calls_search` USING fts5(`body`, tokenize = 'trigram', detail = none, content = '', contentless_delete = 1);
--> statement-breakpoint
INSERT INTO `tool_calls_search` (`rowid`, `body`) SELECT `seq`, coalesce(`id`, '') || char(10) || coalesce(`tool_call_id`, '') || char(10) || coalesce(`session_id`, '') || char(10) || coalesce(`error_code`, '') || char(10) || coalesce(`arguments`, '') || char(10) || coalesce(`output`, '') || char(10) || coalesce(`stdout`, '') || char(10) || coalesce(`stderr`, '') FROM `tool_calls`;
--> statement-breakpoint
CREATE TRIGGER `tool_calls_search_after_insert` AFTER INSERT ON `tool_calls` BEGIN
	INSERT INTO `tool_calls_search` (`rowid`, `body`) VALUES (NEW.`seq`, coalesce(NEW.`id`, '') || char(10) || coalesce(NEW.`tool_call_id`, '') || char(10) || coalesce(NEW.`session_id`, '') || char(10) || coalesce(NEW.`error_code`, '') || char(10) || coalesce(NEW.`arguments`, '') || char(10) || coalesce(NEW.`output`, '') || char(10) || coalesce(NEW.`stdout`, '') || char(10) || coalesce(NEW.`stderr`, ''));
END;
--> statement-breakpoint
CREATE TRIGGER `tool_calls_search_after_update` AFTER UPDATE OF `id`, `tool_call_id`, `session_id`, `error_code`, `arguments`, `output`, `stdout`, `stderr` ON `tool_calls`
	WHEN OLD.`id` IS NOT NEW.`id` OR OLD.`tool_call_id` IS NOT NEW.`tool_call_id` OR OLD.`session_id` IS NOT NEW.`session_id` OR OLD.`error_code` IS NOT NEW.`error_code` OR OLD.`arguments` IS NOT NEW.`arguments` OR OLD.`output` IS NOT NEW.`output` OR OLD.`stdout` IS NOT NEW.`stdout` OR OLD.`stderr` IS NOT NEW.`stderr` BEGIN
	DELETE FROM `tool_calls_search` WHERE `rowid` = OLD.`seq`;
	INSERT INTO `tool_calls_search` (`rowid`, `body`) VALUES (NEW.`seq`, coalesce(NEW.`id`, '') || char(10) || coalesce(NEW.`tool_call_id`, '') || char(10) || coalesce(NEW.`session_id`, '') || char(10) || coalesce(NEW.`error_code`, '') || char(10) || coalesce(NEW.`arguments`, '') || char(10) || coalesce(NEW.`output`, '') || char(10) || coalesce(NEW.`stdout`, '') || char(10) || coalesce(NEW.`stderr`, ''));
END;
--> statement-breakpoint
CREATE TRIGGER `tool_calls_search_after_delete` AFTER DELETE ON `tool_calls` BEGIN
	DELETE FROM `tool_calls_search` WHERE `rowid` = OLD.`seq`;
END;
