package io.orderflow.payment.reconcile;

import io.orderflow.common.Callers;
import io.orderflow.common.MicrosecondClock;
import io.orderflow.common.http.PageParams;
import io.orderflow.payment.attempts.PaymentAttempts;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.jboss.resteasy.reactive.RestQuery;

/**
 * Operators' list of payments the janitor has not settled: attempts still pending longer than
 * {@code payments.reconcile.after}, with what the provider last said when asked. What is left here needs a human
 * (a provider that never answers, a refused query, an attempt that never got a reference). {@code {items, next}},
 * keyset-paged by attempt id.
 */
@RolesAllowed(Callers.OPERATOR)
@Path("/ops/payments-stuck")
@Produces(MediaType.APPLICATION_JSON)
public class StuckPaymentsResource {

    static final int MAX_PAGE = 100;

    /**
     * @param ageSeconds how long ago the attempt started
     * @param lastAnswer what the janitor last heard ({@code pending}, {@code no-answer}, {@code query-declined (code)},
     *        {@code answered <status>}), null until it has asked
     */
    public record Item(UUID attemptId, UUID orderId, String provider, String reference, long amount, String currency,
            Instant pendingSince, long ageSeconds, String lastAnswer, Instant lastAskedAt) {
    }

    public record Page(List<Item> items, String next) {
    }

    private final PaymentAttempts attempts;
    private final ReconcileConfig config;
    private final MicrosecondClock time;

    public StuckPaymentsResource(PaymentAttempts attempts, ReconcileConfig config, MicrosecondClock time) {
        this.attempts = attempts;
        this.config = config;
        this.time = time;
    }

    /** Both parameters are taken as text: a value JAX-RS cannot convert would otherwise be answered 404. */
    @GET
    public Uni<Page> list(@RestQuery String limit, @RestQuery String after) {
        int size = PageParams.size(limit, 20, MAX_PAGE);
        UUID from = PageParams.uuidAfter(after);
        Instant now = time.now();
        return attempts.stuck(now.minus(config.after()), from, size).map(found -> new Page(
                found.stream().map(a -> new Item(a.id, a.orderId, a.provider, a.reference, a.amount,
                        a.currency.trim(), a.createdAt, Duration.between(a.createdAt, now).toSeconds(),
                        a.lastAnswer, a.lastAskedAt)).toList(),
                found.size() == size ? found.get(found.size() - 1).id.toString() : null));
    }
}
