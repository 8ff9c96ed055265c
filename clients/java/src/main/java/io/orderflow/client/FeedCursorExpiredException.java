package io.orderflow.client;

/**
 * {@code 410 feed-cursor-expired}: retention purged events after the reader's cursor. The reader never jumps over
 * them in silence: read what you missed per order ({@code GET /orders/{id}/events}), then
 * {@link FeedReader#restartFrom} {@link #oldestCursor()}.
 */
public final class FeedCursorExpiredException extends ProblemException {

    FeedCursorExpiredException(String operation, Problem problem, String idempotencyKey, int attempts) {
        super(operation, problem, idempotencyKey, attempts);
    }

    /** The oldest cursor the feed still serves. */
    public String oldestCursor() {
        return String.valueOf(members().get("oldestCursor"));
    }
}
