package io.orderflow.webhooks;

import io.orderflow.common.DuplicatedContexts;
import io.orderflow.common.Lifecycle;
import io.orderflow.common.MicrosecondClock;
import io.orderflow.common.PeriodicJob;
import io.orderflow.events.EventMetrics;
import io.orderflow.events.EventsConfig;
import io.orderflow.events.Feed;
import io.orderflow.events.FeedEvent;
import io.orderflow.events.FeedTail;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Vertx;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jboss.logging.Logger;

/**
 * Delivers the feed to the webhook endpoints this replica holds ({@link EndpointLeases}), each on its own
 * ({@link LeasedEndpoint}), the way Svix dispatches: per endpoint a cursor over the feed and a bounded number of
 * deliveries in flight, all endpoints within a bound for the replica; never a round that waits for its slowest
 * receiver. A receiver that hangs or is down holds only its own slots until it is paused; the others go on. Endpoints
 * that keep up read the events from one shared window ({@link FeedTail}); one far behind reads its own pages. What
 * failed is retried from its row by backoff ({@link WebhookDeliveries}). Nothing is held across a send: no
 * transaction, no lock.
 */
@ApplicationScoped
public class WebhookDispatcher {

    private static final Logger LOG = Logger.getLogger(WebhookDispatcher.class);

    /** How often a replica takes its share of endpoints, renews its leases and stores its endpoints' cursors. */
    static final Duration LEASE_ROUND = Duration.ofSeconds(1);
    /** Pages read from PostgreSQL at once for endpoints behind the shared window. */
    static final int MAX_FETCHES = 8;
    static final int PAGE = 500;
    /**
     * How long shutdown waits for the deliveries in flight: within the pod's grace period (35 s) after preStop (5 s)
     * and the HTTP drain ({@code quarkus.shutdown.timeout}, 20 s).
     */
    static final Duration DRAIN = Duration.ofSeconds(5);

    private final EndpointLeases leases;
    private final WebhookDeliveries deliveries;
    private final WebhookSender sender;
    private final WebhookMetrics metrics;
    private final EventMetrics eventMetrics;
    private final FeedTail tail;
    private final Feed feed;
    private final EventsConfig.Webhooks config;
    private final OwedDeliveries owed;
    private final Lifecycle lifecycle;
    private final MicrosecondClock time;
    private final Vertx vertx;
    private final String me = UUID.randomUUID().toString();

    private final Map<UUID, LeasedEndpoint> held = new LinkedHashMap<>();
    private int inFlight;
    private int fetches;
    private Instant nextLeaseRound = Instant.MIN;
    private PeriodicJob periodic;
    /** Set at shutdown: a delivery that ends after it could not have its outcome written, and says so quietly. */
    private volatile boolean stopping;

    public WebhookDispatcher(EndpointLeases leases, WebhookDeliveries deliveries, OwedDeliveries owed,
            WebhookSender sender, WebhookMetrics metrics, EventMetrics eventMetrics, FeedTail tail, Feed feed,
            EventsConfig config, Lifecycle lifecycle, MicrosecondClock time, Vertx vertx) {
        this.leases = leases;
        this.owed = owed;
        this.deliveries = deliveries;
        this.sender = sender;
        this.metrics = metrics;
        this.eventMetrics = eventMetrics;
        this.tail = tail;
        this.feed = feed;
        this.config = config.webhooks();
        this.lifecycle = lifecycle;
        this.time = time;
        this.vertx = vertx;
    }

    void start(@Observes StartupEvent event) {
        periodic = PeriodicJob.start(vertx, WebhookDispatcher.class, config.every(), this::round,
                "Webhook dispatch round failed, the endpoints' cursors and owed deliveries wait for the next one");
    }

    /**
     * Stops taking work, lets the deliveries in flight end (for up to {@link #DRAIN}) so that their outcomes and the
     * cursors they move are written, and frees this replica's endpoints, so another takes them over at once.
     */
    void stop(@Observes ShutdownEvent event) {
        periodic.stop();
        stopping = true;
        drain();
        Map<UUID, Long> cursors = cursorsToStore();
        CompletableFuture<Object> released = new CompletableFuture<>();
        DuplicatedContexts.subscribe(vertx, () -> leases.moveCursors(me, cursors).chain(() -> leases.releaseAll(me)),
                released::complete, released::completeExceptionally);
        try {
            released.get(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            LOG.infof("Webhook endpoints not released at shutdown (%s): another replica takes them when their"
                    + " leases run out", e.toString());
        }
    }

    /**
     * Waits for the deliveries in flight to end, up to {@link #DRAIN}. One still out after that has its outcome
     * unwritten: it stays owed and is sent again, from its row's claim or from the endpoint's stored cursor.
     */
    private void drain() {
        long deadline = System.nanoTime() + DRAIN.toNanos();
        while (inFlight() > 0 && System.nanoTime() < deadline) {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        int left = inFlight();
        if (left > 0) {
            LOG.infof("%d webhook deliveries were still in flight at shutdown: they stay owed and are sent again", left);
        }
    }

    private synchronized int inFlight() {
        return inFlight;
    }

    /** One round: leases (every {@link #LEASE_ROUND}), the shared window, new events, due retries. */
    Uni<Void> round() {
        if (!lifecycle.running()) {
            return Uni.createFrom().voidItem();
        }
        Instant now = time.now();
        Uni<Void> leased = leaseRoundDue(now) ? leaseRound(now) : Uni.createFrom().voidItem();
        return leased.chain(() -> holding() ? tail.refresh() : Uni.createFrom().voidItem()).chain(() -> {
            List<LeasedEndpoint> endpoints;
            synchronized (this) {
                endpoints = List.copyOf(held.values());
            }
            endpoints.forEach(this::pump);
            report(endpoints);
            return retryDue(endpoints);
        });
    }

    /**
     * An endpoint was registered, rotated, enabled or deleted through this replica: its next round reads the
     * endpoints again before it sends anything (other replicas within {@link #LEASE_ROUND}).
     */
    public synchronized void endpointsChanged() {
        nextLeaseRound = Instant.MIN;
    }

    private synchronized boolean holding() {
        return !held.isEmpty();
    }

    private synchronized boolean leaseRoundDue(Instant now) {
        if (now.isBefore(nextLeaseRound)) {
            return false;
        }
        nextLeaseRound = now.plus(LEASE_ROUND);
        return true;
    }

    /** Takes this replica's share of endpoints, stores the cursors that moved, reads the orders owed. */
    private Uni<Void> leaseRound(Instant now) {
        return leases.moveCursors(me, cursorsToStore()).chain(() -> leases.round(me, now, config.lease()))
                .chain(found -> {
                    List<UUID> ids;
                    synchronized (this) {
                        Set<UUID> kept = new HashSet<>();
                        for (EndpointLeases.Held one : found) {
                            kept.add(one.endpoint().id());
                            LeasedEndpoint known = held.get(one.endpoint().id());
                            if (known == null) {
                                held.put(one.endpoint().id(), new LeasedEndpoint(one.endpoint(), one.cursor(),
                                        one.failingSince()));
                            } else {
                                known.refreshed(one.endpoint(), one.failingSince());
                            }
                        }
                        held.keySet().retainAll(kept);
                        held.values().forEach(LeasedEndpoint::refreshingOwed);
                        ids = List.copyOf(held.keySet());
                    }
                    return ids.isEmpty() ? Uni.createFrom().voidItem() : deliveries.owedOrders(ids).invoke(rows -> {
                        Map<UUID, Set<UUID>> owed = new HashMap<>();
                        rows.forEach(row -> owed.computeIfAbsent(UUID.fromString((String) row[0]),
                                id -> new HashSet<>()).add(UUID.fromString((String) row[1])));
                        synchronized (this) {
                            held.forEach((id, endpoint) -> endpoint.owedOrders(owed.getOrDefault(id, Set.of())));
                        }
                    }).replaceWithVoid();
                });
    }

    private synchronized Map<UUID, Long> cursorsToStore() {
        Map<UUID, Long> moved = new HashMap<>();
        held.forEach((id, endpoint) -> {
            Long cursor = endpoint.cursorToStore();
            if (cursor != null) {
                moved.put(id, cursor);
            }
        });
        return moved;
    }

    /** Hands the endpoint its next events while it has slots, and the replica too. */
    private void pump(LeasedEndpoint endpoint) {
        Instant now = time.now();
        List<FeedEvent> sends = new ArrayList<>();
        List<FeedEvent> holds = new ArrayList<>();
        synchronized (this) {
            if (held.get(endpoint.endpoint().id()) != endpoint) {
                return; // no longer ours
            }
            long purged = tail.purgedThrough();
            if (endpoint.read() < purged) {
                long missed = endpoint.skipTo(purged);
                eventMetrics.expired(EventMetrics.Consumer.WEBHOOKS, missed);
                LOG.warnf("Webhook endpoint %s was %d events behind the feed's retention: they were purged before"
                        + " it received them", endpoint.endpoint().id(), missed);
            }
            int perEndpoint = endpoint.paused(now) ? 0 : config.maxInFlightPerEndpoint();
            while (endpoint.wantsMore(perEndpoint, now) && inFlight < config.maxInFlight()) {
                List<FeedEvent> next = next(endpoint);
                if (next.isEmpty()) {
                    break;
                }
                for (FeedEvent event : next) {
                    switch (endpoint.take(event)) {
                        case SEND -> {
                            inFlight++;
                            sends.add(event);
                        }
                        case HOLD -> holds.add(event);
                        default -> {
                        }
                    }
                    if (!endpoint.wantsMore(perEndpoint, now) || inFlight >= config.maxInFlight()) {
                        break;
                    }
                }
            }
        }
        sends.forEach(event -> send(endpoint, event));
        hold(endpoint, holds);
    }

    /** The events after the endpoint's read position: from the shared window, or from its own page of the feed. */
    private List<FeedEvent> next(LeasedEndpoint endpoint) {
        int want = config.maxInFlightPerEndpoint() * 2;
        List<FeedEvent> shared = tail.after(endpoint.read(), want);
        if (shared != null) {
            return shared;
        }
        List<FeedEvent> own = endpoint.backlog().stream().filter(e -> e.position() > endpoint.read()).limit(want)
                .toList();
        if (own.isEmpty() && fetches < MAX_FETCHES && endpoint.startFetching()) {
            fetches++;
            long from = endpoint.read();
            DuplicatedContexts.subscribeUntraced(vertx, () -> feed.pageForConsumer(from, PAGE), page -> {
                synchronized (this) {
                    fetches--;
                    endpoint.backlog(page.events());
                }
                pump(endpoint);
            }, failure -> {
                synchronized (this) {
                    fetches--;
                    endpoint.fetchFailed();
                }
            });
        }
        return own;
    }

    private void send(LeasedEndpoint endpoint, FeedEvent event) {
        Instant now = time.now();
        WebhookEndpoint target = endpoint.endpoint();
        WebhookDeliveries.Due due = new WebhookDeliveries.Due(target.id(), event.id(), event.orderId(),
                event.position(), 1, event.json(), target.url(), target.signingSecrets(now),
                Duration.between(event.time(), now).toNanos() / 1e9, event.trace());
        DuplicatedContexts.subscribe(vertx, () -> sender.send(due).chain(outcome -> firstEnded(endpoint, event, due,
                outcome)), ignored -> pump(endpoint), failure -> lost(endpoint, failure));
    }

    /** A first attempt ended: settled at once if it went through, else owed in a row from now on. */
    private Uni<Void> firstEnded(LeasedEndpoint endpoint, FeedEvent event, WebhookDeliveries.Due due,
            WebhookDeliveries.Outcome outcome) {
        metrics.attempted(outcome);
        Instant now = time.now();
        if (outcome.succeeded()) {
            boolean recovered;
            List<FeedEvent> next;
            synchronized (this) {
                inFlight--;
                endpoint.settle(event.position());
                next = endpoint.ended(event.orderId(), true, config.pauseAfter(), null);
                recovered = endpoint.recoveredNow();
            }
            next.forEach(waiting -> sendNext(endpoint, waiting));
            return recovered ? deliveries.recovered(due.endpointId(), now).replaceWithVoid()
                    : Uni.createFrom().voidItem();
        }
        return deliveries.failedFirst(due, event.type(), outcome, now, now.plus(owed.schedule().after(1)),
                now.minus(config.retry().giveUpAfter())).invoke(settled -> {
                    owed.report(due, outcome, settled);
                    List<FeedEvent> released;
                    synchronized (this) {
                        inFlight--;
                        endpoint.settle(event.position());
                        released = endpoint.ended(event.orderId(), false, config.pauseAfter(),
                                now.plus(owed.schedule().after(endpoint.pauses() + 1)));
                    }
                    hold(endpoint, released);
                }).replaceWithVoid();
    }

    /**
     * What an attempt got could not be written (PostgreSQL away): the endpoint is let go here and taken again from
     * its stored cursor by the next lease round, which sends what was in flight again (at least once).
     */
    private void lost(LeasedEndpoint endpoint, Throwable failure) {
        synchronized (this) {
            inFlight--;
            held.remove(endpoint.endpoint().id(), endpoint);
        }
        LOG.debugf("Webhook endpoint %s starts again from its stored cursor: %s", endpoint.endpoint().id(),
                failure.toString());
    }

    private void sendNext(LeasedEndpoint endpoint, FeedEvent event) {
        synchronized (this) {
            inFlight++;
        }
        send(endpoint, event);
    }

    /** Events behind an order's owed delivery: owed too, in rows; the cursor passes them once written. */
    private void hold(LeasedEndpoint endpoint, List<FeedEvent> events) {
        if (events.isEmpty()) {
            return;
        }
        DuplicatedContexts.subscribeUntraced(vertx, () -> deliveries.hold(endpoint.endpoint().id(), events, time.now()),
                written -> {
                    synchronized (this) {
                        events.forEach(event -> endpoint.settle(event.position()));
                    }
                }, failure -> {
                    LOG.debugf("Webhook deliveries held behind an owed one could not be written (%s); endpoint %s"
                            + " starts again from its stored cursor", failure.toString(), endpoint.endpoint().id());
                    synchronized (this) {
                        held.remove(endpoint.endpoint().id(), endpoint);
                    }
                });
    }

    /** Sends the owed deliveries that are due, to the endpoints with a slot free (one to a paused endpoint). */
    private Uni<Void> retryDue(List<LeasedEndpoint> endpoints) {
        Instant now = time.now();
        List<UUID> open;
        int room;
        synchronized (this) {
            open = endpoints.stream().filter(e -> e.inFlight() < config.maxInFlightPerEndpoint())
                    .map(e -> e.endpoint().id()).toList();
            room = Math.min(config.batchSize(), config.maxInFlight() - inFlight);
        }
        if (open.isEmpty() || room <= 0) {
            return Uni.createFrom().voidItem();
        }
        Instant lease = now.plus(config.timeout().multipliedBy(2)).plus(Duration.ofSeconds(5));
        return deliveries.claim(open, 1, room, now, lease).invoke(due -> due.forEach(this::retry)).replaceWithVoid();
    }

    private void retry(WebhookDeliveries.Due due) {
        LeasedEndpoint endpoint;
        synchronized (this) {
            endpoint = held.get(due.endpointId());
            inFlight++;
            if (endpoint != null) {
                endpoint.startSending(due.orderId());
            }
        }
        DuplicatedContexts.subscribe(vertx, () -> owed.attempt(due, false), attempt -> {
            synchronized (this) {
                inFlight--;
                if (endpoint != null) {
                    endpoint.ended(due.orderId(), attempt.statusCode() != null && attempt.statusCode() / 100 == 2,
                            config.pauseAfter(), time.now().plus(owed.schedule().after(endpoint.pauses() + 1)));
                }
            }
        }, failure -> {
            synchronized (this) {
                inFlight--;
            }
            if (stopping) {
                // the cause is the shutdown itself (the container gone): said at DEBUG only
                LOG.infof("Retry of webhook delivery of event %s to endpoint %s ended as the service stopped, its"
                        + " outcome unwritten: it stays owed and is sent again", due.eventId(), due.endpointId());
                LOG.debugf("Its outcome could not be written: %s", failure.toString());
                return;
            }
            LOG.warnf("Retry of webhook delivery of event %s to endpoint %s could not be settled: %s",
                    due.eventId(), due.endpointId(), failure.toString());
        });
    }

    /** The replica's gauges: how late its endpoints that are not paused are, how many are paused, what is in flight. */
    private void report(List<LeasedEndpoint> endpoints) {
        Instant now = time.now();
        double lag = 0;
        int paused = 0;
        synchronized (this) {
            for (LeasedEndpoint endpoint : endpoints) {
                if (endpoint.paused(now)) {
                    paused++;
                    continue;
                }
                List<FeedEvent> next = tail.after(endpoint.cursor(), 1);
                if (next == null) {
                    next = endpoint.backlog().stream().filter(e -> e.position() > endpoint.cursor()).limit(1).toList();
                }
                if (!next.isEmpty()) {
                    lag = Math.max(lag, Duration.between(next.get(0).time(), now).toNanos() / 1e9);
                }
            }
            metrics.state(lag, paused, inFlight, endpoints.size());
        }
    }
}
