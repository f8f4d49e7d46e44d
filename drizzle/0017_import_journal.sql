-- Imports written a chunk at a time (lib/db/sqlite-import-traces.ts): `imports` holds one row per
-- import still being written, deleted in the transaction that completes it; `import_rows` names
-- what each chunk wrote (a call's seq, or a batch message's id). At start the store takes out the
-- calls and messages of every import left in `imports` (a process stopped mid-import), so a file
-- is imported whole or not at all; rows of completed imports are left over and removed after.
CREATE TABLE `imports` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`started_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `import_rows` (
	`import_id` integer NOT NULL,
	`call_seq` integer,
	`batch_id` text
);
--> statement-breakpoint
CREATE INDEX `import_rows_import_idx` ON `import_rows` (`import_id`);
