-- Written by hand: a call's latency is its execution, without its wait for approval (issue 27).
-- Calls recorded before stored the time from arrival to answer, wait included: the decided wait
-- (decidedAt - requestedAt) is taken out, to the microsecond, in the stored form of latency_ms
-- (negated whole microseconds, see lib/db/coded-columns.ts). The tool series triggers move each
-- changed call to the latency bin of its new latency, so the p50/p95 charts follow.
UPDATE `tool_calls`
	SET `latency_stored` = -CAST(round(max(0, `latency_ms` * 1000
		- (json_extract(`approval`, '$.decidedAt') - json_extract(`approval`, '$.requestedAt')) * 1000)) AS INTEGER)
	WHERE `approval` IS NOT NULL AND `latency_stored` IS NOT NULL
		AND json_extract(`approval`, '$.decidedAt') > json_extract(`approval`, '$.requestedAt');
