import { summaryJson } from '../api/serialize';
import type { SessionCallPair } from './compare-sessions';
import type { IgnoreRules } from './volatile-paths';

/** Ignored differences listed per pair (the rest are counted). */
const LISTED_IGNORED = 20;

/** A pair's compare page: the A call first. */
const compareUrl = (a: string, b: string) => `/traces/${encodeURIComponent(a)}/compare/${encodeURIComponent(b)}`;

/**
 * `GET /api/v1/sessions/:id/compare/:other`'s answer: the pairs (see `compareSessions`), how many
 * calls were paired (`shared`: 0 for unrelated sessions), and the ignore rules applied.
 */
export function sessionComparisonJson(
  sessionId: string,
  otherId: string,
  pairs: readonly SessionCallPair[],
  rules: IgnoreRules,
) {
  return {
    session_id: sessionId,
    other_session_id: otherId,
    shared: pairs.filter((pair) => pair.matchedBy !== null).length,
    ignore_paths: rules.rules.map((rule) => ({
      path: rule.pattern,
      timestamps_only: rule.timestampsOnly,
      source: rule.source,
    })),
    pairs: pairs.map((pair) => ({
      original: pair.original && summaryJson(pair.original),
      replay: pair.replay && summaryJson(pair.replay),
      matched_by: pair.matchedBy,
      verdict: pair.verdict,
      outcome_changed: pair.outcomeChanged,
      output_changed: pair.outputChanged,
      ignored_count: pair.ignored.length,
      ignored: pair.ignored.slice(0, LISTED_IGNORED).map((change) => ({
        path: change.path,
        kind: change.kind,
        rule: change.rule,
      })),
      compare_url: pair.original && pair.replay ? compareUrl(pair.original.id, pair.replay.id) : null,
    })),
  };
}

/** The answer's type, as the session compare page reads it. */
export type SessionComparisonJson = ReturnType<typeof sessionComparisonJson>;
