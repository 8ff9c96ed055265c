package io.orderflow.events;

import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.List;

/**
 * The newest events of the feed, read and rendered once per replica and held in memory for its consumers that keep
 * up with the feed (the webhook endpoints it delivers): a thousand endpoints cost one read of the feed, not a
 * thousand. A consumer further behind than the window reads its own pages from PostgreSQL ({@link Feed}) until it
 * catches up. The window holds at most {@link EventsConfig.Webhooks#window()} events; it fills only while someone
 * refreshes it.
 */
@ApplicationScoped
public class FeedTail {

    /** Most pages read by one refresh, so that a refresh far behind ends and the next goes on. */
    static final int MAX_PAGES = 10;
    static final int PAGE = 500;

    private final Feed feed;
    private final int capacity;
    /** In position order; trimmed a half capacity at a time, so that adding stays cheap. */
    private List<FeedEvent> window = new ArrayList<>();
    /** The window holds every event after this position (up to {@link #head}); -1 before the first refresh. */
    private long floor = -1;
    private long head = -1;
    private long purgedThrough;

    public FeedTail(Feed feed, EventsConfig config) {
        this.feed = feed;
        this.capacity = config.webhooks().window();
    }

    /** Reads what the feed gained since the last refresh into the window; the first one starts at the feed's head. */
    public Uni<Void> refresh() {
        long from;
        synchronized (this) {
            from = head;
        }
        return from < 0 ? feed.pageForConsumer(Long.MAX_VALUE, 1).invoke(page -> start(page.bounds())).replaceWithVoid()
                : pages(from, 0);
    }

    private Uni<Void> pages(long after, int done) {
        return feed.pageForConsumer(after, PAGE).chain(page -> {
            long next = add(page);
            return page.events().size() < PAGE || done + 1 >= MAX_PAGES ? Uni.createFrom().voidItem()
                    : pages(next, done + 1);
        });
    }

    private synchronized void start(Feed.Bounds bounds) {
        floor = bounds.head();
        head = bounds.head();
        purgedThrough = bounds.purgedThrough();
    }

    private synchronized long add(Feed.Page page) {
        purgedThrough = page.bounds().purgedThrough();
        if (head < purgedThrough) { // the tail fell behind retention: start again at the feed's head
            window.clear();
            floor = page.bounds().head();
            head = floor;
            return head;
        }
        for (FeedEvent event : page.events()) {
            if (event.position() > head) {
                window.add(event);
                head = event.position();
            }
        }
        if (window.size() > capacity + capacity / 2) {
            int drop = window.size() - capacity;
            floor = window.get(drop - 1).position();
            window = new ArrayList<>(window.subList(drop, window.size()));
        }
        return head;
    }

    /**
     * Up to {@code max} events after {@code position}, oldest first; null when the window does not reach back to
     * {@code position} (the caller reads the feed itself).
     */
    public synchronized List<FeedEvent> after(long position, int max) {
        if (floor < 0 || position < floor) {
            return null;
        }
        int low = 0;
        int high = window.size();
        while (low < high) { // the first event after position
            int middle = (low + high) >>> 1;
            if (window.get(middle).position() <= position) {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        return List.copyOf(window.subList(low, Math.min(window.size(), low + max)));
    }

    /** The position through which retention purged the feed, as the last refresh saw it. */
    public synchronized long purgedThrough() {
        return purgedThrough;
    }

    /** The newest position the window holds (-1 before the first refresh). */
    public synchronized long head() {
        return head;
    }
}
