-- At most once per tool call id (lib/calls/call-ledger.ts): a request repeating a call's session and
-- tool call id is answered from that call, found by one point query on this index
-- (lib/db/sqlite-tool-call-lookup.ts). Partial: a call without a session adds no entry. Its second
-- term (always true) keeps it to queries that name `tool_call_id_stored`: one by session alone stays
-- on `tool_calls_session_seq_idx`, whose entries are smaller.
CREATE INDEX `tool_calls_session_tool_call_idx` ON `tool_calls` (`session_id`,`tool_call_id_stored`) WHERE "tool_calls"."session_id" IS NOT NULL AND "tool_calls"."tool_call_id_stored" IS NOT NULL;
