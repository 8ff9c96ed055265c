package io.orderflow.common;

/**
 * Whether a unit of database work may be sent again, by the service itself, after its connection broke (a failover,
 * a switchover, a proxy that shut the session). A statement that never reached the database, or that the database
 * answered with an error meaning "nothing done" (a read-only standby), is re-sent whatever it is. One that was sent
 * and whose answer was lost may have committed; it is re-sent only when a committed first copy makes the re-send a
 * no-op, and each constant below says why that holds. See {@link ResendPolicy} and docs/high-availability.md.
 */
public enum ResendSafety {

    /** Re-sent only when it cannot have had an effect: the default for every write not named otherwise. */
    WHEN_NOTHING_DONE,

    /** Writes nothing: sent again, it reads again. */
    READ,

    /**
     * A keyed write, whose statement also inserts the request's dedup record. If the first copy committed, its record
     * stands, and the re-send meets it: a business statement's plain insert fails on the unique key
     * ({@link FirstCopyCommitted}); the store of an outcome that changed no business row inserts
     * {@code on conflict do nothing} and returns the record that stands instead. Either way the idempotency gate
     * answers with the first copy's stored answer. Nothing is written twice.
     */
    KEYED,

    /**
     * A write that changes its row only from the state it was decided on: the order's compare-and-set moves it only
     * from a status where the event applies (and, with If-Match, only at that version). A first copy that committed
     * moved the row out of that state, so the re-send matches nothing and is judged from the history as the duplicate
     * it is. Keyless events (SHIP, DELIVER, CANCEL) never apply again after they applied (no path of the table leads
     * back to their source states; KeylessResendTest checks every keyless event of the table); keyed ones also meet
     * their dedup record. An anomaly's resolution is written only while it has none, so a re-send reads the first.
     */
    GUARDED;

    /**
     * A re-sent unit of work failed on a unique key after an earlier copy's answer was lost: the earlier copy
     * committed. Its cause is the database's refusal.
     */
    public static final class FirstCopyCommitted extends RuntimeException {
        FirstCopyCommitted(Throwable cause) {
            super("an earlier copy of this statement committed", cause, false, false);
        }
    }
}
