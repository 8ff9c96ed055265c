package io.orderflow.client;

import java.util.Objects;
import java.util.Set;

/**
 * Where a feed reader is: the cursor its current page was read from ({@code null}: the oldest retained event) and
 * the ids of that page's events already handled. Saved after each handled event, so a reader started again re-reads
 * that page and skips what was handled.
 */
public final class FeedCheckpoint {

    private final String after;
    private final Set<String> handled;

    public FeedCheckpoint(String after, Set<String> handled) {
        this.after = after;
        this.handled = Set.copyOf(handled);
    }

    public static FeedCheckpoint at(String cursor) {
        return new FeedCheckpoint(cursor, Set.of());
    }

    public String after() {
        return after;
    }

    public Set<String> handled() {
        return handled;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FeedCheckpoint && Objects.equals(after, ((FeedCheckpoint) o).after)
                && handled.equals(((FeedCheckpoint) o).handled);
    }

    @Override
    public int hashCode() {
        return Objects.hash(after, handled);
    }

    @Override
    public String toString() {
        return "after " + after + ", handled " + handled;
    }
}
