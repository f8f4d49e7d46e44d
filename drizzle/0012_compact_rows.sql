-- Smaller rows (see lib/db/schema.ts and lib/db/compact-columns.ts). Rows written from here on hold
-- `stages` and `attempts` as bytes (a BLOB keeps its bytes in a TEXT column: no table rebuild);
-- older rows keep their JSON text, which the decoders still read. Succeeded calls, most of them,
-- leave the status index: it holds the other statuses only.
DROP INDEX `tool_calls_status_seq_idx`;--> statement-breakpoint
CREATE INDEX `tool_calls_status_seq_idx` ON `tool_calls` (`status`,`seq`) WHERE status != 'succeeded';