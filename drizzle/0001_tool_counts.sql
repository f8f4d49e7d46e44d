CREATE TABLE `tool_counts` (
	`tool` text PRIMARY KEY NOT NULL,
	`calls` integer DEFAULT 0 NOT NULL,
	`failures` integer DEFAULT 0 NOT NULL,
	`last_called_at` integer
);
--> statement-breakpoint
DROP INDEX `tool_calls_failed_tool_idx`;--> statement-breakpoint
-- Written by hand: drizzle-kit does not model triggers. They keep tool_counts equal to what
-- counting tool_calls would give; the backfill counts the calls recorded before this migration.
INSERT INTO `tool_counts` (`tool`, `calls`, `failures`, `last_called_at`)
	SELECT `tool`, count(*), sum(`status` = 'failed'), max(`created_at`) FROM `tool_calls` GROUP BY `tool`;
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
CREATE TRIGGER `tool_counts_after_status` AFTER UPDATE OF `status` ON `tool_calls`
	WHEN (OLD.`status` = 'failed') != (NEW.`status` = 'failed') AND OLD.`tool` = NEW.`tool` BEGIN
	UPDATE `tool_counts` SET `failures` = `failures` + (NEW.`status` = 'failed') - (OLD.`status` = 'failed')
		WHERE `tool` = NEW.`tool`;
END;
--> statement-breakpoint
CREATE TRIGGER `tool_counts_after_tool_change` AFTER UPDATE OF `tool` ON `tool_calls`
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
CREATE TRIGGER `tool_counts_after_delete` AFTER DELETE ON `tool_calls` BEGIN
	UPDATE `tool_counts` SET `calls` = `calls` - 1, `failures` = `failures` - (OLD.`status` = 'failed')
		WHERE `tool` = OLD.`tool`;
END;
