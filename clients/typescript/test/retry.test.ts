import assert from 'node:assert/strict';
import { test } from 'node:test';
import { problemFrom, FeedCursorExpiredError, ProblemTypes } from '../src/problem.js';
import { DEFAULT_RETRY_POLICY, delayMs, retryAfterMs, retryable } from '../src/retry.js';

test('retries overload, gateways and a request still in flight, never another refusal', () => {
  for (const status of [429, 502, 503, 504]) {
    assert.equal(retryable(status, ProblemTypes.SERVICE_UNAVAILABLE), true, String(status));
  }
  assert.equal(retryable(409, ProblemTypes.REQUEST_IN_FLIGHT), true);
  assert.equal(retryable(409, ProblemTypes.ILLEGAL_TRANSITION), false);
  for (const status of [400, 401, 403, 404, 410, 412, 422, 500]) {
    assert.equal(retryable(status, ProblemTypes.REQUEST_IN_FLIGHT), false, String(status));
  }
});

test('draws the wait up to a doubling cap, never sooner than Retry-After', () => {
  assert.equal(delayMs(DEFAULT_RETRY_POLICY, 1, undefined, 0.5), 50);
  assert.equal(delayMs(DEFAULT_RETRY_POLICY, 3, undefined, 0.5), 200);
  assert.equal(delayMs(DEFAULT_RETRY_POLICY, 30, undefined, 0.5), 2500);
  assert.equal(delayMs(DEFAULT_RETRY_POLICY, 1, 1000, 0), 1000);
  assert.equal(retryAfterMs('1'), 1000);
  assert.equal(retryAfterMs('Wed, 21 Oct 2015 07:28:00 GMT'), undefined);
  assert.equal(retryAfterMs(null), undefined);
});

test('reads a problem with its members, an expired cursor as its own error, anything else as about:blank', () => {
  const gone = problemFrom('listEvents', 410, JSON.stringify({ type: ProblemTypes.FEED_CURSOR_EXPIRED, title: 'Gone',
    status: 410, oldestCursor: '42' }), undefined, 1);
  assert.ok(gone instanceof FeedCursorExpiredError);
  assert.equal((gone as FeedCursorExpiredError).oldestCursor, '42');
  const blank = problemFrom('createOrder', 502, '<html>Bad Gateway</html>', 'k', 3);
  assert.equal(blank.type, ProblemTypes.ABOUT_BLANK);
  assert.equal(blank.status, 502);
  assert.equal(blank.idempotencyKey, 'k');
});
