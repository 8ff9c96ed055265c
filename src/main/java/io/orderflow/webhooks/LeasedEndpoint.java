package io.orderflow.webhooks;

import io.orderflow.events.FeedEvent;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * One endpoint as the replica that holds it delivers it: a reader of the feed with its own cursor. Plain state and
 * rules (the dispatcher does the I/O and calls these under its lock), so that they are tested without a network.
 *
 * <ul>
 * <li>Events are taken in feed order. One of a type the endpoint does not take is passed over; one whose order has
 * a delivery owed (a row being retried) is held behind it; one whose order has an event in flight waits for it; any
 * other is sent, up to the endpoint's share of slots.</li>
 * <li>The cursor moves past an event once it is settled: delivered, passed over, or owed in a row. So a crash sends
 * at most what was in flight again, and a delivery row exists only for what failed.</li>
 * <li>After {@code pauseAfter} failed attempts in a row, the endpoint takes no new events until {@code resumeAt}:
 * a receiver that is down or hangs costs a few rows and slots, not one per event.</li>
 * </ul>
 */
final class LeasedEndpoint {

    /** What to do with an event taken. */
    enum Step {
        SEND, HOLD, WAIT, PASS
    }

    private WebhookEndpoint endpoint;
    private Instant failingSince;
    private long cursor;
    private long read;
    private final Deque<Long> taken = new ArrayDeque<>();
    private final Set<Long> settled = new HashSet<>();
    private final Map<UUID, Deque<FeedEvent>> waiting = new HashMap<>();
    private int waitingCount;
    private final Set<UUID> sending = new HashSet<>();
    private int inFlight;
    private Set<UUID> owed = new HashSet<>();
    private final Set<UUID> owedSinceRefresh = new HashSet<>();
    private int failuresInARow;
    private int pauses;
    private Instant resumeAt;
    private boolean cursorMoved;
    /** Events read from PostgreSQL for an endpoint behind the shared window, after {@link #read}. */
    private List<FeedEvent> backlog = List.of();
    private boolean fetching;

    LeasedEndpoint(WebhookEndpoint endpoint, long cursor, Instant failingSince) {
        this.endpoint = endpoint;
        this.cursor = cursor;
        this.read = cursor;
        this.failingSince = failingSince;
    }

    WebhookEndpoint endpoint() {
        return endpoint;
    }

    /** The endpoint as the last lease round read it (a rotated secret, an edited URL). */
    void refreshed(WebhookEndpoint latest, Instant stillFailingSince) {
        this.endpoint = latest;
        this.failingSince = stillFailingSince;
    }

    long cursor() {
        return cursor;
    }

    long read() {
        return read;
    }

    int inFlight() {
        return inFlight;
    }

    /** Whether it takes new events now: not paused, a slot free, not too many waiting behind their order. */
    boolean wantsMore(int maxInFlight, Instant now) {
        return !paused(now) && inFlight < maxInFlight && waitingCount < maxInFlight * 4;
    }

    boolean paused(Instant now) {
        return resumeAt != null && now.isBefore(resumeAt);
    }

    /** Takes the next event of the feed (after {@link #read}) and says what to do with it. */
    Step take(FeedEvent event) {
        read = event.position();
        taken.addLast(event.position());
        if (endpoint.types() != null && !endpoint.types().isEmpty() && !endpoint.types().contains(event.type())) {
            settle(event.position());
            return Step.PASS;
        }
        if (owed.contains(event.orderId())) {
            return Step.HOLD;
        }
        if (sending.contains(event.orderId())) {
            waiting.computeIfAbsent(event.orderId(), id -> new ArrayDeque<>()).addLast(event);
            waitingCount++;
            return Step.WAIT;
        }
        startSending(event.orderId());
        return Step.SEND;
    }

    /** A retry of a delivery owed for {@code orderId} goes out. */
    void startSending(UUID orderId) {
        sending.add(orderId);
        inFlight++;
    }

    /**
     * The attempt at an event of {@code orderId} ended; on failure the order is owed from now on. Returns the
     * events of the order that waited for it, each to send (the first) or hold (the rest, or all after a failure).
     */
    List<FeedEvent> ended(UUID orderId, boolean succeeded, int pauseAfter, Instant resumeAt) {
        inFlight--;
        sending.remove(orderId);
        if (succeeded) {
            failuresInARow = 0;
            pauses = 0;
            this.resumeAt = null;
        } else {
            owe(orderId);
            if (++failuresInARow >= pauseAfter) {
                pauses++;
                this.resumeAt = resumeAt;
            }
        }
        Deque<FeedEvent> next = waiting.remove(orderId);
        if (next == null) {
            return List.of();
        }
        waitingCount -= next.size();
        List<FeedEvent> released = new ArrayList<>(next);
        if (!owed.contains(orderId)) {
            startSending(orderId); // the first goes out; the others wait for it again
            FeedEvent first = released.remove(0);
            if (!released.isEmpty()) {
                waiting.put(orderId, new ArrayDeque<>(released));
                waitingCount += released.size();
            }
            return List.of(first);
        }
        return released;
    }

    /** An order with a delivery owed: its next events are held behind it. */
    void owe(UUID orderId) {
        owed.add(orderId);
        owedSinceRefresh.add(orderId);
    }

    /**
     * The orders with a delivery owed, as PostgreSQL listed them; those owed here since the list was asked for stay
     * owed (the list may predate their rows).
     */
    void owedOrders(Set<UUID> listed) {
        Set<UUID> now = new HashSet<>(listed);
        now.addAll(owedSinceRefresh);
        owed = now;
    }

    /** A new list of owed orders is being read: what is owed from now on is kept over it. */
    void refreshingOwed() {
        owedSinceRefresh.clear();
    }

    /** Nothing more to do for the event at {@code position}: the cursor may pass it. */
    void settle(long position) {
        settled.add(position);
        while (!taken.isEmpty() && settled.remove(taken.peekFirst())) {
            cursor = Math.max(cursor, taken.removeFirst()); // never back, past a skip over what retention purged
            cursorMoved = true;
        }
    }

    /** The endpoint fell behind retention: the feed no longer holds what was after its cursor. */
    long skipTo(long purgedThrough) {
        long missed = purgedThrough - cursor;
        cursor = purgedThrough;
        read = Math.max(read, purgedThrough);
        cursorMoved = true;
        backlog = List.of();
        return missed;
    }

    /** The cursor to store, once, when it moved since the last time. */
    Long cursorToStore() {
        if (!cursorMoved) {
            return null;
        }
        cursorMoved = false;
        return cursor;
    }

    /** A success after failures: the endpoint's failure clock is to be stopped (once). */
    boolean recoveredNow() {
        if (failingSince == null) {
            return false;
        }
        failingSince = null;
        return true;
    }

    int pauses() {
        return pauses;
    }

    List<FeedEvent> backlog() {
        return backlog;
    }

    void backlog(List<FeedEvent> events) {
        this.backlog = events;
        this.fetching = false;
    }

    /** Starts reading a page for it, unless one is being read. */
    boolean startFetching() {
        if (fetching) {
            return false;
        }
        fetching = true;
        return true;
    }

    void fetchFailed() {
        fetching = false;
    }
}
