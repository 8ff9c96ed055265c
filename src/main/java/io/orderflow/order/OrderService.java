package io.orderflow.order;

import io.orderflow.common.Reply;
import io.orderflow.common.Times;
import io.orderflow.common.problem.ProblemException;
import io.orderflow.common.problem.ProblemType;
import io.orderflow.idempotency.DedupRecord;
import io.orderflow.idempotency.KeyClaim;
import io.orderflow.order.TransitionMetrics.Outcome;
import io.orderflow.order.domain.ConflictVerdict;
import io.orderflow.order.domain.IllegalTransitionException;
import io.orderflow.order.domain.Order;
import io.orderflow.order.domain.OrderNotFoundException;
import io.orderflow.order.domain.OrderTransitions;
import io.orderflow.order.domain.Transition;
import io.orderflow.order.domain.VersionMismatchException;
import io.orderflow.order.persistence.OrderRepository;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.UUID;
import java.util.function.Function;

/**
 * The one transition path. REST calls and provider callbacks both end in {@link #transition}: read the order,
 * let the table decide, compare-and-set; when the CAS finds the row moved, the history decides whether the request
 * was a duplicate (success, nothing written), deserves another try, or is illegal.
 */
@ApplicationScoped
public class OrderService {

    /** CAS attempts per request before giving up with a 503; only reached under pathological contention. */
    static final int MAX_ATTEMPTS = 8;

    private final OrderRepository orders;
    private final TransitionMetrics metrics;
    private final Times times;

    public OrderService(OrderRepository orders, TransitionMetrics metrics, Times times) {
        this.orders = orders;
        this.metrics = metrics;
        this.times = times;
    }

    /** What a transition produced: the result, and the reply rendered (and, when keyed, recorded) for it. */
    public record Transitioned(TransitionResult result, Reply reply) {
    }

    /**
     * The order, when it exists and {@code owner} (if given) owns it. Someone else's order is answered exactly like
     * a missing one, so its existence is not revealed.
     */
    public Uni<Order> find(UUID id, String owner) {
        return orders.find(id).map(order -> {
            if (order == null || (owner != null && !owner.equals(order.customerId()))) {
                throw new OrderNotFoundException(id);
            }
            return order;
        });
    }

    /** Stores a new order; with a claim, its dedup record goes into the same statement. */
    public Uni<Reply> create(Order order, KeyClaim claim, Function<Order, Reply> render) {
        Reply reply = render.apply(order);
        DedupRecord dedup = claim == null ? null : claim.recordWith(reply, order.id());
        return orders.insert(order, dedup).invoke(() -> {
            if (claim != null) {
                claim.markRecorded();
            }
        }).replaceWith(reply);
    }

    /**
     * @param render turns the result into the reply; called before the CAS for an applied move, so that a keyed
     *        request's stored response commits with the move itself
     */
    public Uni<Transitioned> transition(TransitionCommand command, KeyClaim claim,
            Function<TransitionResult, Reply> render) {
        return attempt(command, claim, render, 1);
    }

    private Uni<Transitioned> attempt(TransitionCommand command, KeyClaim claim,
            Function<TransitionResult, Reply> render, int attempt) {
        return find(command.orderId(), command.owner()).chain(order -> {
            boolean versionOk = command.ifMatch() == null || command.ifMatch() == order.version();
            if (!versionOk || !OrderTransitions.allows(order.status(), command.event())) {
                return settle(command, claim, render, attempt, order, versionOk);
            }
            Order next = order.apply(command.event(), command.details(), times.now());
            Transition step = new Transition((int) next.version(), command.event(), order.status(), next.status(),
                    next.updatedAt(), command.source(), command.requestKey());
            Transitioned done = new Transitioned(new TransitionResult(next, true),
                    render.apply(new TransitionResult(next, true)));
            DedupRecord dedup = claim == null ? null : claim.recordWith(done.reply(), order.id());
            return orders.compareAndSet(order, next, step, dedup).chain(moved -> {
                if (moved) {
                    if (claim != null) {
                        claim.markRecorded();
                    }
                    metrics.count(command.event(), Outcome.APPLIED);
                    return Uni.createFrom().item(done);
                }
                return find(command.orderId(), null).chain(current -> settle(command, claim, render, attempt, current,
                        command.ifMatch() == null || command.ifMatch() == current.version()));
            });
        });
    }

    /** The request cannot be applied to {@code current} as it stands: duplicate, retry or refuse. */
    private Uni<Transitioned> settle(TransitionCommand command, KeyClaim claim,
            Function<TransitionResult, Reply> render, int attempt, Order current, boolean versionOk) {
        return orders.history(current.id()).chain(history -> {
            ConflictVerdict verdict = ConflictVerdict.judge(current.status(), command.event(), history);
            if (verdict == ConflictVerdict.DUPLICATE) {
                metrics.count(command.event(), Outcome.DUPLICATE);
                TransitionResult result = new TransitionResult(current, false);
                return Uni.createFrom().item(new Transitioned(result, render.apply(result).replayed()));
            }
            if (!versionOk) {
                throw new VersionMismatchException(command.ifMatch(), current.version());
            }
            if (verdict == ConflictVerdict.RETRY) {
                if (attempt >= MAX_ATTEMPTS) {
                    throw new ProblemException(io.orderflow.common.problem.Problem.of(
                            ProblemType.SERVICE_UNAVAILABLE, "The order is changing too fast; retry"), "1");
                }
                return attempt(command, claim, render, attempt + 1);
            }
            metrics.count(command.event(), Outcome.ILLEGAL);
            throw new IllegalTransitionException(current.status(), command.event());
        });
    }
}
