package io.orderflow.client;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Where a {@link FeedReader} keeps its place. Keep it durably with what your handler writes (the same database
 * transaction, ideally): then an event is handled once across restarts; otherwise one handled just before a crash
 * may come again.
 */
public interface CursorStore {

    /** The last saved checkpoint; empty at first (the reader starts at the oldest retained event). */
    Optional<FeedCheckpoint> load();

    void save(FeedCheckpoint checkpoint);

    /** In memory: for tests and readers that start from the oldest event each time. */
    static CursorStore inMemory() {
        AtomicReference<FeedCheckpoint> saved = new AtomicReference<>();
        return new CursorStore() {
            @Override
            public Optional<FeedCheckpoint> load() {
                return Optional.ofNullable(saved.get());
            }

            @Override
            public void save(FeedCheckpoint checkpoint) {
                saved.set(checkpoint);
            }
        };
    }
}
