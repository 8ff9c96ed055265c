/** The problem types a caller acts on (openapi.yaml's `Problem` schema lists them all). */
const BASE = 'https://orderflow.dev/problems/';
export const ProblemTypes = {
  INVALID_REQUEST: `${BASE}invalid-request`,
  NOT_FOUND: `${BASE}not-found`,
  ILLEGAL_TRANSITION: `${BASE}illegal-transition`,
  TRANSITION_CONFLICT: `${BASE}transition-conflict`,
  VERSION_MISMATCH: `${BASE}version-mismatch`,
  IDEMPOTENCY_KEY_REUSED: `${BASE}idempotency-key-reused`,
  /** The first request with this key is still running: retried after Retry-After. */
  REQUEST_IN_FLIGHT: `${BASE}request-in-flight`,
  /** A dependency is down or the service sheds load: retried after Retry-After. */
  SERVICE_UNAVAILABLE: `${BASE}service-unavailable`,
  FEED_CURSOR_EXPIRED: `${BASE}feed-cursor-expired`,
  /** No type: the answer was no problem document. */
  ABOUT_BLANK: 'about:blank',
} as const;

/** A call that ended without a success; carries the key its attempts were sent with, to try again later. */
export abstract class OrderflowError extends Error {
  constructor(message: string, readonly idempotencyKey: string | undefined, readonly attempts: number,
      options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/**
 * The service's refusal as an RFC 9457 problem: switch on `type`, never on `title` or `detail`. Type-specific
 * members (`allowedEvents`, `currentVersion`, `oldestCursor`...) are in `members`. An answer that is no problem
 * document (an empty 400, a proxy's 502 page) is `about:blank` with its status.
 */
export class ProblemError extends OrderflowError {
  constructor(operation: string, readonly type: string, readonly title: string, readonly status: number,
      readonly detail: string | undefined, readonly members: Readonly<Record<string, unknown>>,
      idempotencyKey: string | undefined, attempts: number) {
    super(`${operation}: ${status} ${type}${detail ? `: ${detail}` : ''}`, idempotencyKey, attempts);
  }

  is(type: string): boolean {
    return this.type === type;
  }
}

/**
 * `410 feed-cursor-expired`: retention purged events after the reader's cursor. Nothing is skipped in silence: read
 * what you missed per order (`GET /orders/{id}/events`), then `reader.restartFrom(error.oldestCursor)`.
 */
export class FeedCursorExpiredError extends ProblemError {
  get oldestCursor(): string {
    return String(this.members['oldestCursor']);
  }
}

/** No answer before the retry deadline. The call may have taken effect: sending it again with its key is safe. */
export class UnreachableError extends OrderflowError {
}

const STANDARD = new Set(['type', 'title', 'status', 'detail']);

/** Reads a refusal's body as a problem; anything else becomes `about:blank` with its status. */
export function problemFrom(operation: string, status: number, body: string, key: string | undefined,
    attempts: number): ProblemError {
  let json: unknown;
  try {
    json = body ? JSON.parse(body) : undefined;
  } catch {
    json = undefined;
  }
  if (typeof json !== 'object' || json === null || typeof (json as { type?: unknown }).type !== 'string') {
    return new ProblemError(operation, ProblemTypes.ABOUT_BLANK, `HTTP ${status}`, status,
        body ? body.slice(0, 300) : undefined, {}, key, attempts);
  }
  const problem = json as Record<string, unknown>;
  const members = Object.fromEntries(Object.entries(problem).filter(([name]) => !STANDARD.has(name)));
  const type = problem['type'] as string;
  const kind = type === ProblemTypes.FEED_CURSOR_EXPIRED ? FeedCursorExpiredError : ProblemError;
  return new kind(operation, type, String(problem['title'] ?? ''),
      typeof problem['status'] === 'number' ? problem['status'] : status,
      typeof problem['detail'] === 'string' ? problem['detail'] : undefined, members, key, attempts);
}
