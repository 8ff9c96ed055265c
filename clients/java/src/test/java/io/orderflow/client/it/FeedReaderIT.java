package io.orderflow.client.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.orderflow.client.FeedEvent;
import io.orderflow.client.FeedReader;
import io.orderflow.client.FileCursorStore;
import io.orderflow.client.OrderflowClient;
import io.orderflow.client.generated.model.CancelRequest;
import io.orderflow.client.generated.model.CreateOrder;
import io.orderflow.client.generated.model.LineItem;
import io.orderflow.client.generated.model.Order;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The feed reader keeps its place across a restart: every event read once, none skipped. */
class FeedReaderIT {

    @TempDir
    Path folder;

    @Test
    void shouldReadEveryEventOnceAcrossARestartOfTheReader() throws Exception {
        TheService.assumeRunning();
        URI base = URI.create(TheService.URL);
        OrderflowClient customer = TheService.customer(base);
        List<String> ours = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Order order = customer.createOrder(new CreateOrder().currency("EUR")
                    .addItemsItem(new LineItem().sku("FEED-" + i).quantity(1).unitPrice(100L)));
            customer.cancel(order, new CancelRequest().reason("feed test"));
            ours.add(order.getId().toString());
        }
        awaitInFeed(ours, 6);
        Path cursor = folder.resolve("orderflow.cursor");

        // the first reader handles three events, takes a fourth and dies before handling it
        FeedReader first = TheService.operator(base).feed(new FileCursorStore(cursor), 2);
        List<String> handled = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            assertTrue(first.hasNext());
            handled.add(first.next().id());
        }
        String takenNotHandled = first.next().id();
        assertTrue(Files.readString(cursor).contains(handled.get(2)), "the handled event of the page is kept");

        // another process, another client, the same store
        FeedReader second = TheService.operator(base).feed(new FileCursorStore(cursor), 2);
        List<FeedEvent> rest = new ArrayList<>();
        while (second.hasNext()) {
            rest.add(second.next());
        }
        assertEquals(takenNotHandled, rest.get(0).id(), "the restarted reader starts with the event not handled");
        rest.forEach(event -> handled.add(event.id()));

        Set<String> unique = new HashSet<>(handled);
        assertEquals(unique.size(), handled.size(), "an event handled twice: " + handled);
        assertEquals(Database.count("select count(*) from event_feed"), handled.size(), "every event of the feed");
        List<FeedEvent> oursRead = rest.stream().filter(e -> ours.contains(e.subject())).collect(Collectors.toList());
        assertTrue(oursRead.stream().allMatch(FeedEvent::isOrderEvent));
        assertTrue(oursRead.stream().anyMatch(e -> e.type().equals("io.orderflow.order.cancel")
                && "CANCELLED".equals(e.orderEvent().getData().getOrder().getStatus().getValue())), oursRead.toString());
        assertFalse(second.hasNext(), "caught up");
    }

    private static void awaitInFeed(List<String> orders, int events) throws InterruptedException {
        String ids = orders.stream().map(id -> "'" + UUID.fromString(id) + "'").collect(Collectors.joining(","));
        for (int i = 0; i < 200; i++) {
            if (Database.count("select count(*) from event_feed where order_id in (" + ids + ")") == events) {
                return;
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException("the sequencer did not place " + events + " events of " + orders);
    }
}
