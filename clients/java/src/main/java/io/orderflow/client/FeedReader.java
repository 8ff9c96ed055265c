package io.orderflow.client;

import com.fasterxml.jackson.databind.JsonNode;
import io.orderflow.client.generated.ApiClient;
import io.orderflow.client.generated.ApiException;
import io.orderflow.client.generated.ApiResponse;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * Follows {@code GET /events} from where its {@link CursorStore} left off. An event counts as handled once you ask
 * for the next one ({@link #hasNext()}); the reader then saves its checkpoint, so a reader started again over the
 * same store goes on after the last handled event, skipping the handled ones of a page it reads again. Events are
 * also deduplicated by id over the last 10,000 seen (the feed's delivery is at least once overall).
 *
 * <pre>{@code
 * FeedReader feed = client.feed(new FileCursorStore(Path.of("orderflow.cursor")), 100);
 * while (true) {
 *     while (feed.hasNext()) { handle(feed.next()); }
 *     Thread.sleep(1000);   // caught up: poll again
 * }
 * }</pre>
 *
 * {@link #hasNext()} answering false means caught up, not finished: ask again later. A cursor past retention
 * throws {@link FeedCursorExpiredException}: nothing is skipped in silence. Not thread-safe: one reader per thread.
 */
public final class FeedReader implements Iterator<FeedEvent> {

    private static final int REMEMBERED = 10_000;

    private final ApiClient api;
    private final HttpClient http;
    private final Calls calls;
    private final CursorStore store;
    private final int pageSize;
    private final Set<String> recent = Collections.newSetFromMap(new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
            return size() > REMEMBERED;
        }
    });

    private String after;
    private Set<String> handled;
    private List<FeedEvent> page = List.of();
    private int index;
    private String next;
    private boolean pageRead;
    private FeedEvent unacknowledged;

    FeedReader(ApiClient api, Calls calls, CursorStore store, int pageSize) {
        if (pageSize < 1 || pageSize > 500) {
            throw new IllegalArgumentException("pageSize is 1 to 500: " + pageSize);
        }
        this.api = api;
        this.http = api.getHttpClient();
        this.calls = calls;
        this.store = store;
        this.pageSize = pageSize;
        FeedCheckpoint start = store.load().orElse(FeedCheckpoint.at(null));
        this.after = start.after();
        this.handled = new HashSet<>(start.handled());
    }

    /** Marks the last event handled, then says whether another is there now (reading the next page if needed). */
    @Override
    public boolean hasNext() {
        acknowledge();
        while (true) {
            while (index < page.size()) {
                String id = page.get(index).id();
                if (!handled.contains(id) && !recent.contains(id)) {
                    return true;
                }
                index++;
            }
            if (pageRead && !page.isEmpty()) {
                after = next;
                handled = new HashSet<>();
                store.save(FeedCheckpoint.at(after));
            } else if (pageRead) {
                pageRead = false;
                return false;
            }
            read();
        }
    }

    @Override
    public FeedEvent next() {
        if (!hasNext()) {
            throw new NoSuchElementException("caught up with the feed");
        }
        unacknowledged = page.get(index++);
        return unacknowledged;
    }

    /**
     * Goes on from {@code cursor}, e.g. {@link FeedCursorExpiredException#oldestCursor()} once what retention purged
     * was read per order.
     */
    public void restartFrom(String cursor) {
        unacknowledged = null;
        after = cursor;
        handled = new HashSet<>();
        page = List.of();
        pageRead = false;
        store.save(FeedCheckpoint.at(cursor));
    }

    private void acknowledge() {
        if (unacknowledged != null) {
            handled.add(unacknowledged.id());
            recent.add(unacknowledged.id());
            unacknowledged = null;
            store.save(new FeedCheckpoint(after, handled));
        }
    }

    private void read() {
        JsonNode body = calls.read("listEvents", none -> page(after)).getData();
        List<FeedEvent> events = new ArrayList<>();
        body.path("events").forEach(event -> events.add(new FeedEvent(event, api.getObjectMapper())));
        page = events;
        index = 0;
        next = body.path("next").asText(after);
        pageRead = true;
        if (events.isEmpty() && next != null && !next.equals(after)) {
            after = next;
            handled = new HashSet<>();
            store.save(FeedCheckpoint.at(after));
        }
    }

    private ApiResponse<JsonNode> page(String cursor) throws ApiException {
        String query = "?limit=" + pageSize
                + (cursor == null ? "" : "&after=" + URLEncoder.encode(cursor, StandardCharsets.UTF_8));
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(api.getBaseUri() + "/events" + query))
                .header("Accept", "application/json, application/problem+json").GET();
        if (api.getReadTimeout() != null) {
            request.timeout(api.getReadTimeout());
        }
        if (api.getRequestInterceptor() != null) {
            api.getRequestInterceptor().accept(request);
        }
        try {
            HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() / 100 != 2) {
                throw new ApiException(response.statusCode(), "listEvents", response.headers(), response.body());
            }
            return new ApiResponse<>(response.statusCode(), response.headers().map(),
                    api.getObjectMapper().readTree(response.body()));
        } catch (IOException e) {
            throw new ApiException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ApiException(e);
        }
    }
}
