import { createHmac } from 'node:crypto';
import type { NotifyTarget } from '../config';
import { type Clock, systemClock } from '../executor/clock';
import type { TraceRecord } from '../executor/types';

/** Attempts per delivery: the first and four retries, 1 s, 2 s, 4 s and 8 s apart. */
export const NOTIFY_ATTEMPTS = 5;
const FIRST_RETRY_MS = 1_000;
/** Each POST gives up after this long. */
export const NOTIFY_TIMEOUT_MS = 5_000;
/** Deliveries not done at most (queued, in flight, waiting to retry); past it a new one is given up (and counted as failed). */
export const MAX_QUEUED = 500;
/** Failures the Approvals page lists. */
const FAILURES_KEPT = 20;

/** One approval event as a webhook receives it (`format: "json"`). */
export interface ApprovalNotice {
  type: 'approval.requested' | 'approval.decided';
  trace_id: string;
  tool: string;
  side_effect: string | null;
  session_id: string | null;
  /** Redacted, as the trace shows them. */
  arguments: unknown;
  /** Who made the call. */
  principal: { id: string; name: string; role: string } | null;
  rule: string | null;
  requested_at: string | null;
  expires_at: string | null;
  decision: string | null;
  decided_by: { id: string; name: string; role: string } | null;
  reason: string | null;
  /** Where a person decides it (or reads how it was decided). */
  url: string;
}

/** A delivery that failed every attempt, as the Approvals page and the audit trail show it. */
export interface NotifyFailure {
  /** The webhook's origin alone: its path or query may hold its secret (Slack's do). */
  target: string;
  type: ApprovalNotice['type'];
  trace_id: string;
  error: string;
  attempts: number;
  /** ISO time of the last attempt. */
  at: string;
}

export interface ApprovalNotifier {
  /** Queues a notice of `record` to every target; returns at once (a call never waits for it). */
  notify(record: TraceRecord, type: 'requested' | 'decided'): void;
  /** The latest failures, newest first, and the number of deliveries still pending. */
  status(): { targets: number; pending: number; failures: NotifyFailure[] };
  /** Waits for the pending deliveries (tests, shutdown), at most `ms`. */
  drain(ms?: number): Promise<void>;
  close(): void;
}

export interface NotifierOptions {
  targets: readonly NotifyTarget[];
  /** Where links point: `https://toolscope.example` (no trailing slash). */
  linkBase: string;
  /** Told of each delivery that failed every attempt (the audit trail). */
  onFailure?: (failure: NotifyFailure) => void;
  fetch?: typeof fetch;
  clock?: Clock;
}

const iso = (ms: number | null | undefined) => (ms === null || ms === undefined ? null : new Date(ms).toISOString());

/** The notice of an approval event, from the call's record (its arguments already redacted). */
export function approvalNotice(record: TraceRecord, type: 'requested' | 'decided', linkBase: string): ApprovalNotice {
  const approval = record.approval;
  const pick = (p: { id: string; name: string; role: string } | null | undefined) =>
    p ? { id: p.id, name: p.name, role: p.role } : null;
  return {
    type: type === 'requested' ? 'approval.requested' : 'approval.decided',
    trace_id: record.id,
    tool: record.tool,
    side_effect: record.sideEffect,
    session_id: record.sessionId,
    arguments: record.arguments,
    principal: pick(record.principal),
    rule: approval?.rule ?? null,
    requested_at: iso(approval?.requestedAt),
    expires_at: iso(approval?.expiresAt),
    decision: type === 'decided' ? (approval?.decision ?? null) : null,
    decided_by: type === 'decided' ? pick(approval?.decidedBy) : null,
    reason: type === 'decided' ? (approval?.reason ?? null) : null,
    url:
      type === 'requested'
        ? `${linkBase}/approvals?trace=${encodeURIComponent(record.id)}`
        : `${linkBase}/traces/${encodeURIComponent(record.id)}`,
  };
}

/** A Slack incoming webhook's message for a notice: one line of text, the link in Slack's markup. */
export function slackMessage(notice: ApprovalNotice): { text: string } {
  const who = notice.principal ? ` by ${notice.principal.name} (${notice.principal.role})` : '';
  const args = JSON.stringify(notice.arguments ?? null);
  const shown = args.length > 300 ? `${args.slice(0, 300)}…` : args;
  if (notice.type === 'approval.requested') {
    return {
      text: `Approval needed: \`${notice.tool}\`${who} — ${notice.rule ?? ''}\n\`${shown}\`\n<${notice.url}|Approve or deny in Toolscope>`,
    };
  }
  const decider = notice.decided_by ? ` by ${notice.decided_by.name}` : '';
  const reason = notice.reason ? `: ${notice.reason}` : '';
  return { text: `\`${notice.tool}\` ${notice.decision ?? 'decided'}${decider}${reason} <${notice.url}|trace>` };
}

/** A URL's origin (scheme, host, port): what a failure shows of a webhook's address. */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'a webhook';
  }
}

/** `sha256=<hex HMAC-SHA256 of the body with the secret>`: what a receiver checks `x-toolscope-signature` against. */
export function signatureOf(body: string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}

interface Delivery {
  target: NotifyTarget;
  notice: ApprovalNotice;
  body: string;
  attempt: number;
  /** What the last attempt failed with. */
  lastError: string | null;
}

/**
 * Tells webhooks of approvals (`approvals.notify`): each approval requested and decided is POSTed
 * to every target, signed with `x-toolscope-signature` when the target has a secret.
 * 1. `notify` only queues: nothing a call does waits on a webhook;
 * 2. each delivery is tried up to NOTIFY_ATTEMPTS times, NOTIFY_TIMEOUT_MS each, retried after
 *    1, 2, 4, 8 s on a network error or a non-2xx answer;
 * 3. the deliveries not done are bounded (MAX_QUEUED): past it a new one is given up at once;
 * 4. a delivery given up is a failure: kept for the Approvals page and handed to `onFailure`.
 */
export function createApprovalNotifier(options: NotifierOptions): ApprovalNotifier {
  const clock = options.clock ?? systemClock;
  const doFetch = options.fetch ?? globalThis.fetch;
  const queue: Delivery[] = [];
  const failures: NotifyFailure[] = [];
  /** Deliveries waiting to be tried again, by their timer. */
  const timers = new Map<unknown, Delivery>();
  let inFlight = 0;
  let closed = false;
  const idle: (() => void)[] = [];

  const settleIdle = () => {
    if (queue.length === 0 && inFlight === 0 && timers.size === 0) for (const resolve of idle.splice(0)) resolve();
  };
  const fail = (delivery: Delivery, error: string) => {
    const target = originOf(delivery.target.url);
    const failure: NotifyFailure = {
      target,
      type: delivery.notice.type,
      trace_id: delivery.notice.trace_id,
      error,
      attempts: delivery.attempt,
      at: new Date(clock.epochMs()).toISOString(),
    };
    failures.unshift(failure);
    failures.length = Math.min(failures.length, FAILURES_KEPT);
    try {
      options.onFailure?.(failure);
    } catch (cause) {
      console.error('[toolscope] recording a failed notification failed:', cause);
    }
  };
  const attempt = async (delivery: Delivery) => {
    delivery.attempt++;
    inFlight++;
    const controller = new AbortController();
    const timeout = clock.setTimeout(() => controller.abort(), NOTIFY_TIMEOUT_MS);
    let error: string | null = null;
    try {
      const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'toolscope' };
      if (delivery.target.secret) headers['x-toolscope-signature'] = signatureOf(delivery.body, delivery.target.secret);
      const response = await doFetch(delivery.target.url, {
        method: 'POST',
        headers,
        body: delivery.body,
        signal: controller.signal,
        redirect: 'manual',
      });
      await response.body?.cancel().catch(() => {});
      if (response.status < 200 || response.status >= 300) error = `HTTP ${response.status}`;
    } catch (cause) {
      error = controller.signal.aborted
        ? `no answer within ${NOTIFY_TIMEOUT_MS / 1000} s`
        : cause instanceof Error
          ? cause.cause instanceof Error
            ? cause.cause.message
            : cause.message
          : String(cause);
    } finally {
      clock.clearTimeout(timeout);
      inFlight--;
    }
    if (error !== null) {
      delivery.lastError = error;
      if (delivery.attempt >= NOTIFY_ATTEMPTS || closed) fail(delivery, error);
      else {
        const timer = clock.setTimeout(
          () => {
            timers.delete(timer);
            void attempt(delivery);
          },
          FIRST_RETRY_MS * 2 ** (delivery.attempt - 1),
        );
        timers.set(timer, delivery);
      }
    }
    settleIdle();
  };
  const pump = () => {
    while (queue.length > 0) void attempt(queue.shift() as Delivery);
  };

  return {
    notify(record, type) {
      if (closed || options.targets.length === 0) return;
      const notice = approvalNotice(record, type, options.linkBase);
      for (const target of options.targets) {
        const payload = target.format === 'slack' ? slackMessage(notice) : notice;
        const delivery: Delivery = { target, notice, body: JSON.stringify(payload), attempt: 0, lastError: null };
        if (queue.length + inFlight + timers.size >= MAX_QUEUED) {
          fail(delivery, `more than ${MAX_QUEUED} notifications not delivered yet: given up`);
        } else queue.push(delivery);
      }
      // Off the caller's turn: the call that asked goes on at once.
      queueMicrotask(pump);
    },
    status: () => ({
      targets: options.targets.length,
      pending: queue.length + inFlight + timers.size,
      failures: [...failures],
    }),
    drain(ms = 30_000) {
      if (queue.length === 0 && inFlight === 0 && timers.size === 0) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        idle.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
    close() {
      closed = true;
      for (const [timer, delivery] of timers) {
        clock.clearTimeout(timer);
        fail(delivery, `${delivery.lastError ?? 'not sent'}; Toolscope stopped before trying again`);
      }
      timers.clear();
      settleIdle();
    },
  };
}
