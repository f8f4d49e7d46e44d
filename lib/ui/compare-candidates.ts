import type { CallStatus } from '../executor/types';

/** What "Compare with…" compares: a call (trace page) or a session (session page). */
export type CompareSubject =
  | {
      kind: 'trace';
      id: string;
      tool: string;
      sessionId: string | null;
      /** The call this one replays. */
      replayOf: string | null;
      replays: readonly string[];
    }
  | {
      kind: 'session';
      id: string;
      /** The session this one replays. */
      replayOf: string | null;
    };

/** One thing to compare with: a call or a session, with what is known of it. */
export interface Candidate {
  id: string;
  /** What it is to the subject when that is why it is listed: "original", "replay", … */
  relation?: string;
  tool?: string;
  status?: CallStatus;
  sessionId?: string | null;
  /** ISO time: a call's start, a session's last activity. */
  at?: string | null;
  /** A session's calls. */
  calls?: number;
}

export interface CandidateGroup {
  key: string;
  title: string;
  candidates: Candidate[];
  /** The server's answer to the search text (which looks beyond ids): not filtered again here. */
  searched?: boolean;
}

/** Candidates listed per group at most. */
export const GROUP_LIMIT = 20;

/** Whether `candidate` matches the search text: a part of its id (or session id), case ignored. */
function matches(candidate: Candidate, text: string): boolean {
  if (text === '') return true;
  const needle = text.toLowerCase();
  return candidate.id.toLowerCase().includes(needle) || (candidate.sessionId ?? '').toLowerCase().includes(needle);
}

/**
 * The groups of the picker, in order, each candidate listed once (in its first group), the
 * subject never, groups filtered by the search text (but the server's search results) and
 * capped; empty groups left out.
 */
export function candidateGroups(subjectId: string, groups: readonly CandidateGroup[], text: string): CandidateGroup[] {
  const seen = new Set([subjectId]);
  const trimmed = text.trim();
  const out: CandidateGroup[] = [];
  for (const group of groups) {
    const candidates: Candidate[] = [];
    for (const candidate of group.candidates) {
      if (seen.has(candidate.id) || (!group.searched && !matches(candidate, trimmed))) continue;
      seen.add(candidate.id);
      if (candidates.length < GROUP_LIMIT) candidates.push(candidate);
    }
    if (candidates.length > 0) out.push({ ...group, candidates });
  }
  return out;
}

/** The lineage groups of a call: the call it replays, and its replays. */
export function lineageGroups(subject: CompareSubject): CandidateGroup[] {
  const groups: CandidateGroup[] = [];
  if (subject.replayOf) {
    groups.push({
      key: 'original',
      title: subject.kind === 'trace' ? 'The call this replays' : 'The session this replays',
      candidates: [{ id: subject.replayOf, relation: 'original' }],
    });
  }
  if (subject.kind === 'trace' && subject.replays.length > 0) {
    groups.push({
      key: 'replays',
      title: 'Its replays',
      candidates: [...subject.replays].reverse().map((id) => ({ id, relation: 'replay' })),
    });
  }
  return groups;
}

const encode = encodeURIComponent;

/**
 * The compare page of the subject and `candidateId`: the original on the left (A) when the
 * candidate is what the subject replays, the subject on the left otherwise.
 */
export function candidateUrl(subject: CompareSubject, candidateId: string): string {
  const [a, b] = candidateId === subject.replayOf ? [candidateId, subject.id] : [subject.id, candidateId];
  return subject.kind === 'trace'
    ? `/traces/${encode(a)}/compare/${encode(b)}`
    : `/sessions/${encode(a)}/compare/${encode(b)}`;
}
