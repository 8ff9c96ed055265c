import { FetchError, ResponseError } from './generated/index.js';
import { OrderflowError, ProblemTypes, UnreachableError, problemFrom } from './problem.js';

/**
 * When a call is sent again: no answer (connection refused or cut, a timeout), 429, 502, 503, 504, and 409
 * `request-in-flight`; never another 4xx, nor a 500. The wait is full jitter (a random time up to a cap that
 * doubles per attempt), never sooner than the service's `Retry-After`; no retry would end past the deadline.
 */
export interface RetryPolicy {
  /** How long a call may go on retrying, from its first attempt (30 s). */
  deadlineMs: number;
  /** The first wait's cap (100 ms), doubling per attempt... */
  baseDelayMs: number;
  /** ...up to this (5 s). */
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { deadlineMs: 30_000, baseDelayMs: 100, maxDelayMs: 5_000 };

/** One failed attempt, told to `onRetry` before the wait (`delayMs` undefined: giving up). */
export interface Attempt {
  operation: string;
  idempotencyKey?: string;
  number: number;
  /** 0 when no answer came. */
  status: number;
  problemType?: string;
  failure: string;
  delayMs?: number;
}

export function retryable(status: number, problemType: string | undefined): boolean {
  return status === 429 || status === 502 || status === 503 || status === 504
      || (status === 409 && problemType === ProblemTypes.REQUEST_IN_FLIGHT);
}

export function delayMs(policy: RetryPolicy, attempt: number, retryAfterMs: number | undefined,
    random: number = Math.random()): number {
  const cap = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.min(attempt - 1, 20));
  return (retryAfterMs ?? 0) + Math.floor(random * cap);
}

/** `Retry-After` in seconds (the service's form); a date or garbage counts as absent. */
export function retryAfterMs(header: string | null): number | undefined {
  return header !== null && /^\s*\d{1,9}\s*$/.test(header) ? Number(header.trim()) * 1000 : undefined;
}

/** Runs `send` until it succeeds, the answer is final, or the deadline; `key` goes with every attempt. */
export async function withRetries<T>(policy: RetryPolicy, onRetry: (attempt: Attempt) => void, operation: string,
    key: string | undefined, send: (key: string | undefined) => Promise<T>): Promise<T> {
  const deadline = Date.now() + policy.deadlineMs;
  for (let number = 1; ; number++) {
    let failure: OrderflowError;
    let retryAfter: number | undefined;
    try {
      return await send(key);
    } catch (e) {
      if (e instanceof ResponseError) {
        failure = problemFrom(operation, e.response.status, await e.response.text(), key, number);
        retryAfter = retryAfterMs(e.response.headers.get('Retry-After'));
      } else if (e instanceof FetchError) {
        failure = new UnreachableError(`${operation}: no answer after ${number} attempt(s): ${describe(e.cause)}`,
            key, number, { cause: e.cause });
      } else {
        throw e;
      }
    }
    const status = 'status' in failure ? (failure as { status: number }).status : 0;
    const type = 'type' in failure ? (failure as { type: string }).type : undefined;
    let delay: number | undefined = status === 0 || retryable(status, type)
        ? delayMs(policy, number, retryAfter) : undefined;
    if (delay !== undefined && Date.now() + delay > deadline) {
      delay = undefined;
    }
    onRetry({ operation, idempotencyKey: key, number, status, problemType: type,
      failure: status === 0 ? describe((failure.cause as Error | undefined)) : failure.message, delayMs: delay });
    if (delay === undefined) {
      throw failure;
    }
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

function describe(error: Error | undefined): string {
  const cause = (error as { cause?: { code?: string } } | undefined)?.cause;
  return `${error?.message ?? 'no answer'}${cause?.code ? ` (${cause.code})` : ''}`;
}
