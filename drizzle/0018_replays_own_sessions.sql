-- Written by hand: a replay of one call records into a session of its own, `<session>~replay-<n>`
-- (lib/replay/replay-sessions.ts), so the recorded session keeps only the calls that ran in it
-- (issue 27). Replays written before into the session of the call they replay each move into a
-- session of their own, numbered per session after any `<session>~replay-<n>` there already is, in
-- the order they were written. Such a replay: its original is in the same session or, the original
-- gone, its session holds calls that are no replays (a session replay's session holds replays only).
-- `replay_of` is the original's id as text; `id` is a canonical UUID's 16 bytes or text (see
-- lib/db/trace-id.ts); `session_id` is plain text. A session id longer than 242 characters is cut
-- there, leaving room for the number within the API's 256. `sessions_after_move` (0014) moves each
-- call between the rows of `sessions`; the calls left behind are numbered 1, 2, 3… again
-- (`session_seq`), the moved ones are their session's 1, and the bounds of the sessions they left
-- are read again (REFRESH_STALE_SESSIONS_SQL of lib/db/session-triggers.ts).
CREATE TEMP TABLE `replay_moves` (
	`seq` integer PRIMARY KEY NOT NULL,
	`from_session` text NOT NULL,
	`to_session` text NOT NULL
);
--> statement-breakpoint
INSERT INTO `replay_moves` (`seq`, `from_session`, `to_session`)
	SELECT `seq`, `session_id`, `base` || '~replay-' || (`last` + row_number() OVER (PARTITION BY `base` ORDER BY `seq`))
	FROM (
		SELECT `seq`, `session_id`, `base`,
			coalesce((SELECT max(CAST(substr(s.`id`, length(`base`) + 9) AS integer)) FROM `sessions` s
				WHERE s.`id` > `base` || '~replay-' AND s.`id` < `base` || '~replay.'
					AND length(s.`id`) <= length(`base`) + 17 AND substr(s.`id`, length(`base`) + 9) GLOB '[1-9]*'
					AND NOT substr(s.`id`, length(`base`) + 9) GLOB '*[^0-9]*'), 0) AS `last`
		FROM (
			SELECT r.`seq`, r.`session_id`,
				CASE WHEN length(r.`session_id`) > 242 THEN substr(r.`session_id`, 1, 242) ELSE r.`session_id` END AS `base`
			FROM `tool_calls` r
			WHERE r.`replay_of` IS NOT NULL AND r.`session_id` IS NOT NULL AND (
				EXISTS (SELECT 1 FROM `tool_calls` o WHERE o.`session_id` = r.`session_id` AND o.`id` IN (r.`replay_of`,
					CASE WHEN r.`replay_of` GLOB '[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]' THEN unhex(replace(r.`replay_of`, '-', '')) END))
				OR (NOT EXISTS (SELECT 1 FROM `tool_calls` o WHERE o.`id` IN (r.`replay_of`,
						CASE WHEN r.`replay_of` GLOB '[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]' THEN unhex(replace(r.`replay_of`, '-', '')) END))
					AND EXISTS (SELECT 1 FROM `tool_calls` a WHERE a.`session_id` = r.`session_id` AND a.`replay_of` IS NULL))
			)
		)
	);
--> statement-breakpoint
UPDATE `tool_calls` SET `session_id` = m.`to_session`, `session_seq` = 1
	FROM `replay_moves` m WHERE `tool_calls`.`seq` = m.`seq`;
--> statement-breakpoint
UPDATE `tool_calls` SET `session_seq` = n.`place`
	FROM (
		SELECT `seq`, row_number() OVER (PARTITION BY `session_id` ORDER BY `session_seq`, `seq`) AS `place`
		FROM `tool_calls` WHERE `session_seq` IS NOT NULL AND `session_id` IN (SELECT `from_session` FROM `replay_moves`)
	) AS n
	WHERE `tool_calls`.`seq` = n.`seq` AND `tool_calls`.`session_seq` != n.`place`;
--> statement-breakpoint
UPDATE sessions SET first_call_at = agg.first, last_call_at = agg.last,
    last_call_second = agg.last / 1000, last_finished_at = agg.last_finished, stale = 0
  FROM (SELECT session_id, min(created_at) AS first, max(created_at) AS last, max(finished_at) AS last_finished
    FROM tool_calls WHERE session_id IN (SELECT id FROM sessions WHERE stale = 1) GROUP BY session_id) AS agg
  WHERE sessions.id = agg.session_id;
--> statement-breakpoint
DROP TABLE `replay_moves`;
