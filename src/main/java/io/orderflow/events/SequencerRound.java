package io.orderflow.events;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * What one sequencer round decides, from what PostgreSQL showed it (plain Java, so that the rules are tested without
 * a database): which candidates get positions, in which order, and the next horizon.
 *
 * <p>An order's events must get positions in their own order: by the order's version each follows, a transition
 * before the side events that follow it ({@link Event#key}). Transaction ids do not give that order: a transaction
 * draws its id at its first write, so a transition that waited on its order's row lock may hold a smaller id than
 * the transition it waited for. A round that sees all candidates at once orders each order's events by key. A round
 * cut short by its limit may have taken an order's later event and left an earlier one (with a larger transaction
 * id) for the next round: it holds such events back, and keeps its horizon below them, so the next round sees them
 * again.
 */
final class SequencerRound {

    /** A candidate event: its writer's transaction id, its order, its feed row's kind and ref, its key, its time. */
    record Event(long xid, UUID orderId, char kind, long ref, long k1, int k2, Instant at) {

        /** The event's place among its order's events. */
        static final Comparator<Event> KEY = Comparator.comparingLong(Event::k1).thenComparingInt(Event::k2)
                .thenComparingLong(Event::ref);

        boolean sameRow(Event other) {
            return kind == other.kind && ref == other.ref && orderId.equals(other.orderId);
        }
    }

    /** The events to append, in position order, and the horizon to keep. */
    record Decision(List<Event> events, long horizon) {
    }

    private final long position;
    private final long horizon;
    private final long xmin;
    private final List<Event> candidates;
    private final int limit;

    /**
     * @param position the feed's last position
     * @param horizon every event written below it has a position
     * @param xmin the oldest transaction id still running when the candidates were read: every one below has ended
     * @param candidates the events at or above the horizon without a position, by transaction id, at most
     *        {@code limit + 1} (one more tells that there were more)
     */
    SequencerRound(long position, long horizon, long xmin, List<Event> candidates, int limit) {
        this.position = position;
        this.horizon = horizon;
        this.xmin = xmin;
        this.candidates = List.copyOf(candidates);
        this.limit = limit;
    }

    long position() {
        return position;
    }

    long horizon() {
        return horizon;
    }

    /** Whether there were more candidates than the round takes. */
    boolean truncated() {
        return candidates.size() > limit;
    }

    /** The transaction id of the first candidate left out, when truncated. */
    long cut() {
        return truncated() ? candidates.get(limit).xid() : Long.MAX_VALUE;
    }

    /** The orders of the candidates taken. */
    List<Object> takenOrders() {
        return taken().stream().map(Event::orderId).distinct().map(id -> (Object) id).toList();
    }

    /** When the oldest candidate happened: how far the feed is behind. */
    Optional<Instant> oldest() {
        return candidates.stream().map(Event::at).min(Comparator.naturalOrder());
    }

    private List<Event> taken() {
        return truncated() ? candidates.subList(0, limit) : candidates;
    }

    /**
     * @param later when truncated, the events of the taken orders without a position written at or above the cut
     *        (some of them may be among the taken ones)
     */
    Decision decide(List<Event> later) {
        List<Event> taken = taken();
        Map<UUID, Event> firstLeft = new HashMap<>();
        for (Event event : later) {
            if (taken.stream().noneMatch(event::sameRow)) {
                firstLeft.merge(event.orderId(), event, (a, b) -> Event.KEY.compare(a, b) <= 0 ? a : b);
            }
        }
        List<Event> kept = new ArrayList<>();
        long next = truncated() ? Math.min(cut(), xmin) : Math.max(horizon, xmin);
        for (Event event : taken) {
            Event before = firstLeft.get(event.orderId());
            if (before != null && Event.KEY.compare(before, event) < 0) {
                next = Math.min(next, event.xid()); // held back: the next round must see it again
            } else {
                kept.add(event);
            }
        }
        return new Decision(inPositionOrder(kept), Math.max(horizon, next));
    }

    /**
     * Each order's events in key order, the orders interleaved by transaction id: an event goes at the largest
     * transaction id among its order's events up to it, so no event of an order precedes an earlier one.
     */
    private static List<Event> inPositionOrder(List<Event> events) {
        Map<UUID, List<Event>> byOrder = new LinkedHashMap<>();
        events.forEach(event -> byOrder.computeIfAbsent(event.orderId(), id -> new ArrayList<>()).add(event));
        record Placed(long at, Event event) {
        }
        List<Placed> placed = new ArrayList<>();
        for (List<Event> own : byOrder.values()) {
            own.sort(Event.KEY);
            long at = Long.MIN_VALUE;
            for (Event event : own) {
                at = Math.max(at, event.xid());
                placed.add(new Placed(at, event));
            }
        }
        placed.sort(Comparator.comparingLong(Placed::at).thenComparing(p -> p.event().orderId())
                .thenComparing(Placed::event, Event.KEY));
        return placed.stream().map(Placed::event).toList();
    }
}
