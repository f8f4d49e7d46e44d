-- Seven columns stored compactly behind generated columns of the same names (lib/db/coded-columns.ts):
-- `tool_call_id`, `tool`, `status`, `side_effect`, `actor`, `latency_ms` and `finished_at` read as
-- before; rows hold `tool_stored`, `status_stored`, … Written from codedColumnsMigrationSql() of
-- lib/db/coded-columns.ts for the triggers 0013 left (a test checks they agree). No row is rewritten (rows keep
-- their plain values, which read as themselves) except an imported call id, tool or actor starting with a
-- control character (one scan of the table); the indexes on `tool` and `status` are built again (one scan each).
ALTER TABLE `tool_calls` RENAME COLUMN `tool_call_id` TO `tool_call_id_stored`;
--> statement-breakpoint
ALTER TABLE `tool_calls` RENAME COLUMN `actor` TO `actor_stored`;
--> statement-breakpoint
ALTER TABLE `tool_calls` RENAME COLUMN `tool` TO `tool_stored`;
--> statement-breakpoint
ALTER TABLE `tool_calls` RENAME COLUMN `status` TO `status_stored`;
--> statement-breakpoint
ALTER TABLE `tool_calls` RENAME COLUMN `side_effect` TO `side_effect_stored`;
--> statement-breakpoint
ALTER TABLE `tool_calls` RENAME COLUMN `latency_ms` TO `latency_stored`;
--> statement-breakpoint
ALTER TABLE `tool_calls` RENAME COLUMN `finished_at` TO `finished_stored`;
--> statement-breakpoint
DROP TRIGGER `sessions_after_change`;
--> statement-breakpoint
DROP TRIGGER `sessions_after_delete`;
--> statement-breakpoint
DROP TRIGGER `sessions_after_insert`;
--> statement-breakpoint
DROP TRIGGER `sessions_after_move`;
--> statement-breakpoint
DROP TRIGGER `tool_calls_id_search_after_delete`;
--> statement-breakpoint
DROP TRIGGER `tool_calls_id_search_after_update`;
--> statement-breakpoint
DROP TRIGGER `tool_counts_after_delete`;
--> statement-breakpoint
DROP TRIGGER `tool_counts_after_insert`;
--> statement-breakpoint
DROP TRIGGER `tool_counts_after_status`;
--> statement-breakpoint
DROP TRIGGER `tool_counts_after_tool_change`;
--> statement-breakpoint
DROP TRIGGER `tool_series_after_delete`;
--> statement-breakpoint
DROP TRIGGER `tool_series_after_update_add`;
--> statement-breakpoint
DROP TRIGGER `tool_series_after_update_remove`;
--> statement-breakpoint
UPDATE `tool_calls` SET `tool_stored` = iif((`tool_stored` < ' ' AND `tool_stored` != ''), char(31) || `tool_stored`, `tool_stored`) WHERE (`tool_stored` < ' ' AND `tool_stored` != '');
--> statement-breakpoint
UPDATE `tool_calls` SET `tool_call_id_stored` = iif((`tool_call_id_stored` < ' ' AND `tool_call_id_stored` != ''), char(31) || `tool_call_id_stored`, `tool_call_id_stored`), `actor_stored` = iif((`actor_stored` < ' ' AND `actor_stored` != ''), char(31) || `actor_stored`, `actor_stored`) WHERE (`tool_call_id_stored` < ' ' AND `tool_call_id_stored` != '') OR (`actor_stored` < ' ' AND `actor_stored` != '');
--> statement-breakpoint
ALTER TABLE `tool_calls` ADD COLUMN `tool_call_id` text GENERATED ALWAYS AS (CASE WHEN `tool_call_id_stored` >= ' ' THEN `tool_call_id_stored` ELSE CASE unicode(`tool_call_id_stored`) WHEN 1 THEN 'call_' || substr(`tool_call_id_stored`, 2) WHEN 2 THEN 'toolu_01' || substr(`tool_call_id_stored`, 2) WHEN 3 THEN 'toolu_' || substr(`tool_call_id_stored`, 2) WHEN 31 THEN substr(`tool_call_id_stored`, 2) ELSE `tool_call_id_stored` END END) VIRTUAL;
--> statement-breakpoint
ALTER TABLE `tool_calls` ADD COLUMN `actor` text GENERATED ALWAYS AS (CASE WHEN `actor_stored` >= ' ' THEN `actor_stored` ELSE CASE unicode(`actor_stored`) WHEN 1 THEN 'api' WHEN 31 THEN substr(`actor_stored`, 2) ELSE `actor_stored` END END) VIRTUAL;
--> statement-breakpoint
ALTER TABLE `tool_calls` ADD COLUMN `tool` text GENERATED ALWAYS AS (CASE WHEN `tool_stored` >= ' ' THEN `tool_stored` ELSE CASE unicode(`tool_stored`) WHEN 1 THEN 'read_file' WHEN 2 THEN 'write_file' WHEN 3 THEN 'run_shell' WHEN 4 THEN 'http_request' WHEN 5 THEN 'calculator' WHEN 31 THEN substr(`tool_stored`, 2) ELSE `tool_stored` END END) VIRTUAL;
--> statement-breakpoint
ALTER TABLE `tool_calls` ADD COLUMN `status` text GENERATED ALWAYS AS (CASE WHEN `status_stored` >= ' ' THEN `status_stored` WHEN `status_stored` = '' THEN 'succeeded' ELSE CASE unicode(`status_stored`) WHEN 1 THEN 'failed' WHEN 2 THEN 'running' WHEN 3 THEN 'denied' WHEN 4 THEN 'cancelled' WHEN 5 THEN 'awaiting_approval' WHEN 6 THEN 'interrupted' WHEN 31 THEN substr(`status_stored`, 2) ELSE `status_stored` END END) VIRTUAL;
--> statement-breakpoint
ALTER TABLE `tool_calls` ADD COLUMN `side_effect` text GENERATED ALWAYS AS (CASE WHEN `side_effect_stored` >= ' ' THEN `side_effect_stored` WHEN `side_effect_stored` = '' THEN 'read' ELSE CASE unicode(`side_effect_stored`) WHEN 1 THEN 'none' WHEN 2 THEN 'write' WHEN 3 THEN 'exec' WHEN 31 THEN substr(`side_effect_stored`, 2) ELSE `side_effect_stored` END END) VIRTUAL;
--> statement-breakpoint
ALTER TABLE `tool_calls` ADD COLUMN `latency_ms` real GENERATED ALWAYS AS (CASE WHEN `latency_stored` < 0 THEN `latency_stored` / -1000.0 ELSE `latency_stored` END) VIRTUAL;
--> statement-breakpoint
ALTER TABLE `tool_calls` ADD COLUMN `finished_at` integer GENERATED ALWAYS AS (CASE WHEN `finished_stored` < 0 THEN `created_at` - `finished_stored` - 1 ELSE `finished_stored` END) VIRTUAL;
--> statement-breakpoint
DROP INDEX `tool_calls_tool_seq_idx`;
--> statement-breakpoint
CREATE INDEX `tool_calls_tool_seq_idx` ON `tool_calls` (`tool`);
--> statement-breakpoint
DROP INDEX `tool_calls_status_seq_idx`;
--> statement-breakpoint
CREATE INDEX `tool_calls_status_seq_idx` ON `tool_calls` (`status`) WHERE status != 'succeeded';
--> statement-breakpoint
CREATE TRIGGER `sessions_after_change` AFTER UPDATE OF `status_stored`, `finished_stored`, `approval`, `created_at` ON `tool_calls`
	WHEN NEW.`session_id` IS NOT NULL AND OLD.`session_id` IS NEW.`session_id` AND OLD.`created_at` = NEW.`created_at`
		AND (OLD.`status` IS NOT NEW.`status` OR OLD.`finished_at` IS NOT NEW.`finished_at` OR OLD.`approval` IS NOT NEW.`approval`) BEGIN
	UPDATE `sessions` SET
		`failed` = `failed` + (NEW.`status` = 'failed') - (OLD.`status` = 'failed'),
		`denied` = `denied` + (NEW.`status` = 'denied') - (OLD.`status` = 'denied'),
		`running` = `running` + (NEW.`status` IN ('running', 'awaiting_approval')) - (OLD.`status` IN ('running', 'awaiting_approval')),
		`approval_wait_ms` = `approval_wait_ms` + (CASE WHEN NEW.`approval` IS NULL THEN 0 ELSE coalesce(json_extract(NEW.`approval`, '$.decidedAt') - json_extract(NEW.`approval`, '$.requestedAt'), 0) END) - (CASE WHEN OLD.`approval` IS NULL THEN 0 ELSE coalesce(json_extract(OLD.`approval`, '$.decidedAt') - json_extract(OLD.`approval`, '$.requestedAt'), 0) END),
		`last_finished_at` = CASE WHEN NEW.`finished_at` IS NULL THEN `last_finished_at`
			ELSE max(coalesce(`last_finished_at`, 0), NEW.`finished_at`) END,
		`stale` = `stale` OR coalesce(OLD.`finished_at` >= `last_finished_at` AND (NEW.`finished_at` IS NULL OR NEW.`finished_at` < OLD.`finished_at`), 0)
		WHERE `id` = NEW.`session_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `sessions_after_delete` AFTER DELETE ON `tool_calls`
	WHEN OLD.`session_id` IS NOT NULL BEGIN
	UPDATE `sessions` SET
		`calls` = `calls` - 1,
		`failed` = `failed` - (OLD.`status` = 'failed'),
		`denied` = `denied` - (OLD.`status` = 'denied'),
		`running` = `running` - (OLD.`status` IN ('running', 'awaiting_approval')),
		`approval_wait_ms` = `approval_wait_ms` - (CASE WHEN OLD.`approval` IS NULL THEN 0 ELSE coalesce(json_extract(OLD.`approval`, '$.decidedAt') - json_extract(OLD.`approval`, '$.requestedAt'), 0) END),
		`stale` = `stale` OR OLD.`created_at` <= `first_call_at` OR OLD.`created_at` >= `last_call_at`
			OR coalesce(OLD.`finished_at` >= `last_finished_at`, 0)
		WHERE `id` = OLD.`session_id`;
	DELETE FROM `sessions` WHERE `id` = OLD.`session_id` AND `calls` <= 0;
END;
--> statement-breakpoint
CREATE TRIGGER `sessions_after_insert` AFTER INSERT ON `tool_calls`
	WHEN NEW.`session_id` IS NOT NULL BEGIN
	INSERT INTO `sessions` (`id`, `first_call_at`, `last_call_at`, `last_call_second`, `last_finished_at`, `calls`, `failed`, `denied`, `running`, `approval_wait_ms`)
		VALUES (NEW.`session_id`, NEW.`created_at`, NEW.`created_at`, NEW.`created_at` / 1000, NEW.`finished_at`, 1, (NEW.`status` = 'failed'), (NEW.`status` = 'denied'), (NEW.`status` IN ('running', 'awaiting_approval')), (CASE WHEN NEW.`approval` IS NULL THEN 0 ELSE coalesce(json_extract(NEW.`approval`, '$.decidedAt') - json_extract(NEW.`approval`, '$.requestedAt'), 0) END))
		ON CONFLICT (`id`) DO UPDATE SET
			`first_call_at` = min(`first_call_at`, excluded.`first_call_at`),
			`last_call_at` = max(`last_call_at`, excluded.`last_call_at`),
			`last_finished_at` = CASE WHEN excluded.`last_finished_at` IS NULL THEN `last_finished_at`
				ELSE max(coalesce(`last_finished_at`, 0), excluded.`last_finished_at`) END,
			`calls` = `calls` + 1,
			`failed` = `failed` + excluded.`failed`,
			`denied` = `denied` + excluded.`denied`,
			`running` = `running` + excluded.`running`,
			`approval_wait_ms` = `approval_wait_ms` + excluded.`approval_wait_ms`;
	UPDATE `sessions` SET `last_call_second` = NEW.`created_at` / 1000
		WHERE `id` = NEW.`session_id` AND `last_call_second` < NEW.`created_at` / 1000;
END;
--> statement-breakpoint
CREATE TRIGGER `sessions_after_move` AFTER UPDATE OF `session_id`, `created_at` ON `tool_calls`
	WHEN OLD.`session_id` IS NOT NEW.`session_id` OR OLD.`created_at` != NEW.`created_at` BEGIN
	UPDATE `sessions` SET
		`calls` = `calls` - 1,
		`failed` = `failed` - (OLD.`status` = 'failed'),
		`denied` = `denied` - (OLD.`status` = 'denied'),
		`running` = `running` - (OLD.`status` IN ('running', 'awaiting_approval')),
		`approval_wait_ms` = `approval_wait_ms` - (CASE WHEN OLD.`approval` IS NULL THEN 0 ELSE coalesce(json_extract(OLD.`approval`, '$.decidedAt') - json_extract(OLD.`approval`, '$.requestedAt'), 0) END),
		`stale` = `stale` OR OLD.`created_at` <= `first_call_at` OR OLD.`created_at` >= `last_call_at`
			OR coalesce(OLD.`finished_at` >= `last_finished_at`, 0)
		WHERE OLD.`session_id` IS NOT NULL AND `id` = OLD.`session_id`;
	DELETE FROM `sessions` WHERE OLD.`session_id` IS NOT NULL AND `id` = OLD.`session_id` AND `calls` <= 0;
	INSERT INTO `sessions` (`id`, `first_call_at`, `last_call_at`, `last_call_second`, `last_finished_at`, `calls`, `failed`, `denied`, `running`, `approval_wait_ms`)
		SELECT NEW.`session_id`, NEW.`created_at`, NEW.`created_at`, NEW.`created_at` / 1000, NEW.`finished_at`, 1, (NEW.`status` = 'failed'), (NEW.`status` = 'denied'), (NEW.`status` IN ('running', 'awaiting_approval')), (CASE WHEN NEW.`approval` IS NULL THEN 0 ELSE coalesce(json_extract(NEW.`approval`, '$.decidedAt') - json_extract(NEW.`approval`, '$.requestedAt'), 0) END) WHERE NEW.`session_id` IS NOT NULL
		ON CONFLICT (`id`) DO UPDATE SET
			`first_call_at` = min(`first_call_at`, excluded.`first_call_at`),
			`last_call_at` = max(`last_call_at`, excluded.`last_call_at`),
			`last_finished_at` = CASE WHEN excluded.`last_finished_at` IS NULL THEN `last_finished_at`
				ELSE max(coalesce(`last_finished_at`, 0), excluded.`last_finished_at`) END,
			`calls` = `calls` + 1,
			`failed` = `failed` + excluded.`failed`,
			`denied` = `denied` + excluded.`denied`,
			`running` = `running` + excluded.`running`,
			`approval_wait_ms` = `approval_wait_ms` + excluded.`approval_wait_ms`;
	UPDATE `sessions` SET `last_call_second` = NEW.`created_at` / 1000
		WHERE `id` = NEW.`session_id` AND `last_call_second` < NEW.`created_at` / 1000;
END;
--> statement-breakpoint
CREATE TRIGGER `tool_calls_id_search_after_delete` AFTER DELETE ON `tool_calls`
	WHEN OLD.`seq` <= (SELECT `indexed_upto` FROM `search_state`) BEGIN
	INSERT INTO `tool_calls_id_search` (`tool_calls_id_search`, `rowid`, `id_trigrams`, `tool_call_id_trigrams`) VALUES ('delete', OLD.`seq`, CASE WHEN typeof(OLD.`id`) = 'blob' THEN lower(hex(substr(OLD.`id`, 13))) ELSE substr(OLD.`id`, -8) END, substr(OLD.`tool_call_id`, -8));
END;
--> statement-breakpoint
CREATE TRIGGER `tool_calls_id_search_after_update` AFTER UPDATE OF `id`, `tool_call_id_stored` ON `tool_calls`
	WHEN (OLD.`id` IS NOT NEW.`id` OR OLD.`tool_call_id` IS NOT NEW.`tool_call_id`) AND OLD.`seq` <= (SELECT `indexed_upto` FROM `search_state`) BEGIN
	INSERT INTO `tool_calls_id_search` (`tool_calls_id_search`, `rowid`, `id_trigrams`, `tool_call_id_trigrams`) VALUES ('delete', OLD.`seq`, CASE WHEN typeof(OLD.`id`) = 'blob' THEN lower(hex(substr(OLD.`id`, 13))) ELSE substr(OLD.`id`, -8) END, substr(OLD.`tool_call_id`, -8));
	INSERT INTO `tool_calls_id_search` (`rowid`, `id_trigrams`, `tool_call_id_trigrams`) VALUES (NEW.`seq`, CASE WHEN typeof(NEW.`id`) = 'blob' THEN lower(hex(substr(NEW.`id`, 13))) ELSE substr(NEW.`id`, -8) END, substr(NEW.`tool_call_id`, -8));
END;
--> statement-breakpoint
CREATE TRIGGER `tool_counts_after_delete` AFTER DELETE ON `tool_calls` BEGIN
	UPDATE `tool_counts` SET `calls` = `calls` - 1, `failures` = `failures` - (OLD.`status` = 'failed')
		WHERE `tool` = OLD.`tool`;
END;
--> statement-breakpoint
CREATE TRIGGER `tool_counts_after_insert` AFTER INSERT ON `tool_calls` BEGIN
	INSERT INTO `tool_counts` (`tool`, `calls`, `failures`, `last_called_at`)
		VALUES (NEW.`tool`, 1, NEW.`status` = 'failed', NEW.`created_at`)
		ON CONFLICT (`tool`) DO UPDATE SET
			`calls` = `calls` + 1,
			`failures` = `failures` + excluded.`failures`,
			`last_called_at` = max(coalesce(`last_called_at`, 0), excluded.`last_called_at`);
END;
--> statement-breakpoint
CREATE TRIGGER `tool_counts_after_status` AFTER UPDATE OF `status_stored` ON `tool_calls`
	WHEN (OLD.`status` = 'failed') != (NEW.`status` = 'failed') AND OLD.`tool` = NEW.`tool` BEGIN
	UPDATE `tool_counts` SET `failures` = `failures` + (NEW.`status` = 'failed') - (OLD.`status` = 'failed')
		WHERE `tool` = NEW.`tool`;
END;
--> statement-breakpoint
CREATE TRIGGER `tool_counts_after_tool_change` AFTER UPDATE OF `tool_stored` ON `tool_calls`
	WHEN OLD.`tool` != NEW.`tool` BEGIN
	UPDATE `tool_counts` SET `calls` = `calls` - 1, `failures` = `failures` - (OLD.`status` = 'failed')
		WHERE `tool` = OLD.`tool`;
	INSERT INTO `tool_counts` (`tool`, `calls`, `failures`, `last_called_at`)
		VALUES (NEW.`tool`, 1, NEW.`status` = 'failed', NEW.`created_at`)
		ON CONFLICT (`tool`) DO UPDATE SET
			`calls` = `calls` + 1,
			`failures` = `failures` + excluded.`failures`,
			`last_called_at` = max(coalesce(`last_called_at`, 0), excluded.`last_called_at`);
END;
--> statement-breakpoint
CREATE TRIGGER `tool_series_after_delete` AFTER DELETE ON `tool_calls`
	WHEN OLD.`finished_at` IS NOT NULL BEGIN
	UPDATE `tool_series_minutes` SET `calls` = `calls` - 1, `failures` = `failures` - (OLD.`status` = 'failed'), `bin_0` = `bin_0` - (b.bin = 0), `bin_1` = `bin_1` - (b.bin = 1), `bin_2` = `bin_2` - (b.bin = 2), `bin_3` = `bin_3` - (b.bin = 3), `bin_4` = `bin_4` - (b.bin = 4), `bin_5` = `bin_5` - (b.bin = 5), `bin_6` = `bin_6` - (b.bin = 6), `bin_7` = `bin_7` - (b.bin = 7), `bin_8` = `bin_8` - (b.bin = 8), `bin_9` = `bin_9` - (b.bin = 9), `bin_10` = `bin_10` - (b.bin = 10), `bin_11` = `bin_11` - (b.bin = 11), `bin_12` = `bin_12` - (b.bin = 12), `bin_13` = `bin_13` - (b.bin = 13), `bin_14` = `bin_14` - (b.bin = 14), `bin_15` = `bin_15` - (b.bin = 15), `bin_16` = `bin_16` - (b.bin = 16), `bin_17` = `bin_17` - (b.bin = 17), `bin_18` = `bin_18` - (b.bin = 18), `bin_19` = `bin_19` - (b.bin = 19)
		FROM (SELECT CASE WHEN OLD.`latency_ms` IS NULL THEN -1 WHEN OLD.`latency_ms` < 0.1 THEN 0 WHEN OLD.`latency_ms` < 0.2 THEN 1 WHEN OLD.`latency_ms` < 0.5 THEN 2 WHEN OLD.`latency_ms` < 1 THEN 3 WHEN OLD.`latency_ms` < 2 THEN 4 WHEN OLD.`latency_ms` < 5 THEN 5 WHEN OLD.`latency_ms` < 10 THEN 6 WHEN OLD.`latency_ms` < 20 THEN 7 WHEN OLD.`latency_ms` < 50 THEN 8 WHEN OLD.`latency_ms` < 100 THEN 9 WHEN OLD.`latency_ms` < 200 THEN 10 WHEN OLD.`latency_ms` < 500 THEN 11 WHEN OLD.`latency_ms` < 1000 THEN 12 WHEN OLD.`latency_ms` < 2000 THEN 13 WHEN OLD.`latency_ms` < 5000 THEN 14 WHEN OLD.`latency_ms` < 10000 THEN 15 WHEN OLD.`latency_ms` < 20000 THEN 16 WHEN OLD.`latency_ms` < 50000 THEN 17 WHEN OLD.`latency_ms` < 100000 THEN 18 ELSE 19 END AS bin) AS b
		WHERE `tool` = OLD.`tool` AND `bucket` = OLD.`finished_at` - OLD.`finished_at` % 60000;
	UPDATE `tool_series_hours` SET `calls` = `calls` - 1, `failures` = `failures` - (OLD.`status` = 'failed'), `bin_0` = `bin_0` - (b.bin = 0), `bin_1` = `bin_1` - (b.bin = 1), `bin_2` = `bin_2` - (b.bin = 2), `bin_3` = `bin_3` - (b.bin = 3), `bin_4` = `bin_4` - (b.bin = 4), `bin_5` = `bin_5` - (b.bin = 5), `bin_6` = `bin_6` - (b.bin = 6), `bin_7` = `bin_7` - (b.bin = 7), `bin_8` = `bin_8` - (b.bin = 8), `bin_9` = `bin_9` - (b.bin = 9), `bin_10` = `bin_10` - (b.bin = 10), `bin_11` = `bin_11` - (b.bin = 11), `bin_12` = `bin_12` - (b.bin = 12), `bin_13` = `bin_13` - (b.bin = 13), `bin_14` = `bin_14` - (b.bin = 14), `bin_15` = `bin_15` - (b.bin = 15), `bin_16` = `bin_16` - (b.bin = 16), `bin_17` = `bin_17` - (b.bin = 17), `bin_18` = `bin_18` - (b.bin = 18), `bin_19` = `bin_19` - (b.bin = 19)
		FROM (SELECT CASE WHEN OLD.`latency_ms` IS NULL THEN -1 WHEN OLD.`latency_ms` < 0.1 THEN 0 WHEN OLD.`latency_ms` < 0.2 THEN 1 WHEN OLD.`latency_ms` < 0.5 THEN 2 WHEN OLD.`latency_ms` < 1 THEN 3 WHEN OLD.`latency_ms` < 2 THEN 4 WHEN OLD.`latency_ms` < 5 THEN 5 WHEN OLD.`latency_ms` < 10 THEN 6 WHEN OLD.`latency_ms` < 20 THEN 7 WHEN OLD.`latency_ms` < 50 THEN 8 WHEN OLD.`latency_ms` < 100 THEN 9 WHEN OLD.`latency_ms` < 200 THEN 10 WHEN OLD.`latency_ms` < 500 THEN 11 WHEN OLD.`latency_ms` < 1000 THEN 12 WHEN OLD.`latency_ms` < 2000 THEN 13 WHEN OLD.`latency_ms` < 5000 THEN 14 WHEN OLD.`latency_ms` < 10000 THEN 15 WHEN OLD.`latency_ms` < 20000 THEN 16 WHEN OLD.`latency_ms` < 50000 THEN 17 WHEN OLD.`latency_ms` < 100000 THEN 18 ELSE 19 END AS bin) AS b
		WHERE `tool` = OLD.`tool` AND `bucket` = OLD.`finished_at` - OLD.`finished_at` % 3600000;
END;
--> statement-breakpoint
CREATE TRIGGER `tool_series_after_update_add` AFTER UPDATE OF `tool_stored`, `status_stored`, `finished_stored`, `latency_stored`, `created_at` ON `tool_calls`
	WHEN OLD.`finished_at` IS NOT NULL AND NEW.`finished_at` IS NOT NULL AND (OLD.`tool` IS NOT NEW.`tool` OR OLD.`status` IS NOT NEW.`status` OR OLD.`finished_at` IS NOT NEW.`finished_at` OR OLD.`latency_ms` IS NOT NEW.`latency_ms`) BEGIN
	INSERT INTO `tool_series_minutes` (`tool`, `bucket`, `calls`, `failures`, `bin_0`, `bin_1`, `bin_2`, `bin_3`, `bin_4`, `bin_5`, `bin_6`, `bin_7`, `bin_8`, `bin_9`, `bin_10`, `bin_11`, `bin_12`, `bin_13`, `bin_14`, `bin_15`, `bin_16`, `bin_17`, `bin_18`, `bin_19`)
		SELECT NEW.`tool`, NEW.`finished_at` - NEW.`finished_at` % 60000, 1, NEW.`status` = 'failed', bin = 0, bin = 1, bin = 2, bin = 3, bin = 4, bin = 5, bin = 6, bin = 7, bin = 8, bin = 9, bin = 10, bin = 11, bin = 12, bin = 13, bin = 14, bin = 15, bin = 16, bin = 17, bin = 18, bin = 19
		FROM (SELECT CASE WHEN NEW.`latency_ms` IS NULL THEN -1 WHEN NEW.`latency_ms` < 0.1 THEN 0 WHEN NEW.`latency_ms` < 0.2 THEN 1 WHEN NEW.`latency_ms` < 0.5 THEN 2 WHEN NEW.`latency_ms` < 1 THEN 3 WHEN NEW.`latency_ms` < 2 THEN 4 WHEN NEW.`latency_ms` < 5 THEN 5 WHEN NEW.`latency_ms` < 10 THEN 6 WHEN NEW.`latency_ms` < 20 THEN 7 WHEN NEW.`latency_ms` < 50 THEN 8 WHEN NEW.`latency_ms` < 100 THEN 9 WHEN NEW.`latency_ms` < 200 THEN 10 WHEN NEW.`latency_ms` < 500 THEN 11 WHEN NEW.`latency_ms` < 1000 THEN 12 WHEN NEW.`latency_ms` < 2000 THEN 13 WHEN NEW.`latency_ms` < 5000 THEN 14 WHEN NEW.`latency_ms` < 10000 THEN 15 WHEN NEW.`latency_ms` < 20000 THEN 16 WHEN NEW.`latency_ms` < 50000 THEN 17 WHEN NEW.`latency_ms` < 100000 THEN 18 ELSE 19 END AS bin) WHERE true
		ON CONFLICT (`tool`, `bucket`) DO UPDATE SET `calls` = `calls` + 1, `failures` = `failures` + excluded.`failures`, `bin_0` = `bin_0` + excluded.`bin_0`, `bin_1` = `bin_1` + excluded.`bin_1`, `bin_2` = `bin_2` + excluded.`bin_2`, `bin_3` = `bin_3` + excluded.`bin_3`, `bin_4` = `bin_4` + excluded.`bin_4`, `bin_5` = `bin_5` + excluded.`bin_5`, `bin_6` = `bin_6` + excluded.`bin_6`, `bin_7` = `bin_7` + excluded.`bin_7`, `bin_8` = `bin_8` + excluded.`bin_8`, `bin_9` = `bin_9` + excluded.`bin_9`, `bin_10` = `bin_10` + excluded.`bin_10`, `bin_11` = `bin_11` + excluded.`bin_11`, `bin_12` = `bin_12` + excluded.`bin_12`, `bin_13` = `bin_13` + excluded.`bin_13`, `bin_14` = `bin_14` + excluded.`bin_14`, `bin_15` = `bin_15` + excluded.`bin_15`, `bin_16` = `bin_16` + excluded.`bin_16`, `bin_17` = `bin_17` + excluded.`bin_17`, `bin_18` = `bin_18` + excluded.`bin_18`, `bin_19` = `bin_19` + excluded.`bin_19`;
	INSERT INTO `tool_series_hours` (`tool`, `bucket`, `calls`, `failures`, `bin_0`, `bin_1`, `bin_2`, `bin_3`, `bin_4`, `bin_5`, `bin_6`, `bin_7`, `bin_8`, `bin_9`, `bin_10`, `bin_11`, `bin_12`, `bin_13`, `bin_14`, `bin_15`, `bin_16`, `bin_17`, `bin_18`, `bin_19`)
		SELECT NEW.`tool`, NEW.`finished_at` - NEW.`finished_at` % 3600000, 1, NEW.`status` = 'failed', bin = 0, bin = 1, bin = 2, bin = 3, bin = 4, bin = 5, bin = 6, bin = 7, bin = 8, bin = 9, bin = 10, bin = 11, bin = 12, bin = 13, bin = 14, bin = 15, bin = 16, bin = 17, bin = 18, bin = 19
		FROM (SELECT CASE WHEN NEW.`latency_ms` IS NULL THEN -1 WHEN NEW.`latency_ms` < 0.1 THEN 0 WHEN NEW.`latency_ms` < 0.2 THEN 1 WHEN NEW.`latency_ms` < 0.5 THEN 2 WHEN NEW.`latency_ms` < 1 THEN 3 WHEN NEW.`latency_ms` < 2 THEN 4 WHEN NEW.`latency_ms` < 5 THEN 5 WHEN NEW.`latency_ms` < 10 THEN 6 WHEN NEW.`latency_ms` < 20 THEN 7 WHEN NEW.`latency_ms` < 50 THEN 8 WHEN NEW.`latency_ms` < 100 THEN 9 WHEN NEW.`latency_ms` < 200 THEN 10 WHEN NEW.`latency_ms` < 500 THEN 11 WHEN NEW.`latency_ms` < 1000 THEN 12 WHEN NEW.`latency_ms` < 2000 THEN 13 WHEN NEW.`latency_ms` < 5000 THEN 14 WHEN NEW.`latency_ms` < 10000 THEN 15 WHEN NEW.`latency_ms` < 20000 THEN 16 WHEN NEW.`latency_ms` < 50000 THEN 17 WHEN NEW.`latency_ms` < 100000 THEN 18 ELSE 19 END AS bin) WHERE true
		ON CONFLICT (`tool`, `bucket`) DO UPDATE SET `calls` = `calls` + 1, `failures` = `failures` + excluded.`failures`, `bin_0` = `bin_0` + excluded.`bin_0`, `bin_1` = `bin_1` + excluded.`bin_1`, `bin_2` = `bin_2` + excluded.`bin_2`, `bin_3` = `bin_3` + excluded.`bin_3`, `bin_4` = `bin_4` + excluded.`bin_4`, `bin_5` = `bin_5` + excluded.`bin_5`, `bin_6` = `bin_6` + excluded.`bin_6`, `bin_7` = `bin_7` + excluded.`bin_7`, `bin_8` = `bin_8` + excluded.`bin_8`, `bin_9` = `bin_9` + excluded.`bin_9`, `bin_10` = `bin_10` + excluded.`bin_10`, `bin_11` = `bin_11` + excluded.`bin_11`, `bin_12` = `bin_12` + excluded.`bin_12`, `bin_13` = `bin_13` + excluded.`bin_13`, `bin_14` = `bin_14` + excluded.`bin_14`, `bin_15` = `bin_15` + excluded.`bin_15`, `bin_16` = `bin_16` + excluded.`bin_16`, `bin_17` = `bin_17` + excluded.`bin_17`, `bin_18` = `bin_18` + excluded.`bin_18`, `bin_19` = `bin_19` + excluded.`bin_19`;
END;
--> statement-breakpoint
CREATE TRIGGER `tool_series_after_update_remove` AFTER UPDATE OF `tool_stored`, `status_stored`, `finished_stored`, `latency_stored`, `created_at` ON `tool_calls`
	WHEN OLD.`finished_at` IS NOT NULL AND (OLD.`tool` IS NOT NEW.`tool` OR OLD.`status` IS NOT NEW.`status` OR OLD.`finished_at` IS NOT NEW.`finished_at` OR OLD.`latency_ms` IS NOT NEW.`latency_ms`) BEGIN
	UPDATE `tool_series_minutes` SET `calls` = `calls` - 1, `failures` = `failures` - (OLD.`status` = 'failed'), `bin_0` = `bin_0` - (b.bin = 0), `bin_1` = `bin_1` - (b.bin = 1), `bin_2` = `bin_2` - (b.bin = 2), `bin_3` = `bin_3` - (b.bin = 3), `bin_4` = `bin_4` - (b.bin = 4), `bin_5` = `bin_5` - (b.bin = 5), `bin_6` = `bin_6` - (b.bin = 6), `bin_7` = `bin_7` - (b.bin = 7), `bin_8` = `bin_8` - (b.bin = 8), `bin_9` = `bin_9` - (b.bin = 9), `bin_10` = `bin_10` - (b.bin = 10), `bin_11` = `bin_11` - (b.bin = 11), `bin_12` = `bin_12` - (b.bin = 12), `bin_13` = `bin_13` - (b.bin = 13), `bin_14` = `bin_14` - (b.bin = 14), `bin_15` = `bin_15` - (b.bin = 15), `bin_16` = `bin_16` - (b.bin = 16), `bin_17` = `bin_17` - (b.bin = 17), `bin_18` = `bin_18` - (b.bin = 18), `bin_19` = `bin_19` - (b.bin = 19)
		FROM (SELECT CASE WHEN OLD.`latency_ms` IS NULL THEN -1 WHEN OLD.`latency_ms` < 0.1 THEN 0 WHEN OLD.`latency_ms` < 0.2 THEN 1 WHEN OLD.`latency_ms` < 0.5 THEN 2 WHEN OLD.`latency_ms` < 1 THEN 3 WHEN OLD.`latency_ms` < 2 THEN 4 WHEN OLD.`latency_ms` < 5 THEN 5 WHEN OLD.`latency_ms` < 10 THEN 6 WHEN OLD.`latency_ms` < 20 THEN 7 WHEN OLD.`latency_ms` < 50 THEN 8 WHEN OLD.`latency_ms` < 100 THEN 9 WHEN OLD.`latency_ms` < 200 THEN 10 WHEN OLD.`latency_ms` < 500 THEN 11 WHEN OLD.`latency_ms` < 1000 THEN 12 WHEN OLD.`latency_ms` < 2000 THEN 13 WHEN OLD.`latency_ms` < 5000 THEN 14 WHEN OLD.`latency_ms` < 10000 THEN 15 WHEN OLD.`latency_ms` < 20000 THEN 16 WHEN OLD.`latency_ms` < 50000 THEN 17 WHEN OLD.`latency_ms` < 100000 THEN 18 ELSE 19 END AS bin) AS b
		WHERE `tool` = OLD.`tool` AND `bucket` = OLD.`finished_at` - OLD.`finished_at` % 60000;
	UPDATE `tool_series_hours` SET `calls` = `calls` - 1, `failures` = `failures` - (OLD.`status` = 'failed'), `bin_0` = `bin_0` - (b.bin = 0), `bin_1` = `bin_1` - (b.bin = 1), `bin_2` = `bin_2` - (b.bin = 2), `bin_3` = `bin_3` - (b.bin = 3), `bin_4` = `bin_4` - (b.bin = 4), `bin_5` = `bin_5` - (b.bin = 5), `bin_6` = `bin_6` - (b.bin = 6), `bin_7` = `bin_7` - (b.bin = 7), `bin_8` = `bin_8` - (b.bin = 8), `bin_9` = `bin_9` - (b.bin = 9), `bin_10` = `bin_10` - (b.bin = 10), `bin_11` = `bin_11` - (b.bin = 11), `bin_12` = `bin_12` - (b.bin = 12), `bin_13` = `bin_13` - (b.bin = 13), `bin_14` = `bin_14` - (b.bin = 14), `bin_15` = `bin_15` - (b.bin = 15), `bin_16` = `bin_16` - (b.bin = 16), `bin_17` = `bin_17` - (b.bin = 17), `bin_18` = `bin_18` - (b.bin = 18), `bin_19` = `bin_19` - (b.bin = 19)
		FROM (SELECT CASE WHEN OLD.`latency_ms` IS NULL THEN -1 WHEN OLD.`latency_ms` < 0.1 THEN 0 WHEN OLD.`latency_ms` < 0.2 THEN 1 WHEN OLD.`latency_ms` < 0.5 THEN 2 WHEN OLD.`latency_ms` < 1 THEN 3 WHEN OLD.`latency_ms` < 2 THEN 4 WHEN OLD.`latency_ms` < 5 THEN 5 WHEN OLD.`latency_ms` < 10 THEN 6 WHEN OLD.`latency_ms` < 20 THEN 7 WHEN OLD.`latency_ms` < 50 THEN 8 WHEN OLD.`latency_ms` < 100 THEN 9 WHEN OLD.`latency_ms` < 200 THEN 10 WHEN OLD.`latency_ms` < 500 THEN 11 WHEN OLD.`latency_ms` < 1000 THEN 12 WHEN OLD.`latency_ms` < 2000 THEN 13 WHEN OLD.`latency_ms` < 5000 THEN 14 WHEN OLD.`latency_ms` < 10000 THEN 15 WHEN OLD.`latency_ms` < 20000 THEN 16 WHEN OLD.`latency_ms` < 50000 THEN 17 WHEN OLD.`latency_ms` < 100000 THEN 18 ELSE 19 END AS bin) AS b
		WHERE `tool` = OLD.`tool` AND `bucket` = OLD.`finished_at` - OLD.`finished_at` % 3600000;
END;
