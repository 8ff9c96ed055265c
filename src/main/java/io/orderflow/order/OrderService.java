package io.orderflow.order;

import io.orderflow.common.Reply;
import io.orderflow.common.Times;
import io.orderflow.common.problem.Problem;
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
import java.util.List;
import java.util.UUID;
import java.util.function.Function;

/**
 * The one transition path. REST calls and provider callbacks both end in {@link #transition}: read the order,
 * let the table decide, compare-and-set; when the CAS finds the row moved, read again and decide again. When the
 * table forbids the event, the history (read with the order) decides whether the request was a duplicate (success,
 * nothing written) or is illegal. A transition costs two round trips; a duplicate without key costs one.
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
            if (order == null || !owns(owner, order)) {
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
        return transition(command, claim, render, order -> Uni.createFrom().voidItem());
    }

    /**
     * @param check runs on the order as read, before anything is decided (a callback compares the amount there); a
     *        failure ends the request. It saves the caller a read of its own.
     */
    public Uni<Transitioned> transition(TransitionCommand command, KeyClaim claim,
            Function<TransitionResult, Reply> render, Function<Order, Uni<Void>> check) {
        return attempt(command, claim, render, check, 1);
    }

    private Uni<Transitioned> attempt(TransitionCommand command, KeyClaim claim,
            Function<TransitionResult, Reply> render, Function<Order, Uni<Void>> check, int attempt) {
        if (attempt > MAX_ATTEMPTS) {
            return Uni.createFrom().failure(new ProblemException(Problem.of(ProblemType.SERVICE_UNAVAILABLE,
                    "The order is changing too fast; retry"), "1"));
        }
        return orders.findForEvent(command.orderId(), command.event()).map(snapshot -> {
            if (snapshot == null || !owns(command.owner(), snapshot.order())) {
                throw new OrderNotFoundException(command.orderId());
            }
            return snapshot;
        }).call(snapshot -> check.apply(snapshot.order())).chain(snapshot -> {
            Order order = snapshot.order();
            boolean versionOk = command.ifMatch() == null || command.ifMatch() == order.version();
            if (versionOk && OrderTransitions.allows(order.status(), command.event())) {
                return move(command, claim, render, order).chain(done -> done != null
                        ? Uni.createFrom().item(done)
                        : attempt(command, claim, render, check, attempt + 1));
            }
            return settle(command, render, snapshot, versionOk);
        });
    }

    /** The compare-and-set; null when another request moved the order first (nothing was written). */
    private Uni<Transitioned> move(TransitionCommand command, KeyClaim claim,
            Function<TransitionResult, Reply> render, Order order) {
        Order next = order.apply(command.event(), command.details(), times.now());
        Transition step = new Transition((int) next.version(), command.event(), order.status(), next.status(),
                next.updatedAt(), command.source(), command.requestKey());
        TransitionResult result = new TransitionResult(next, true);
        Transitioned done = new Transitioned(result, render.apply(result));
        DedupRecord dedup = claim == null ? null : claim.recordWith(done.reply(), order.id());
        return orders.compareAndSet(order, next, step, dedup).map(moved -> {
            if (!moved) {
                return null;
            }
            if (claim != null) {
                claim.markRecorded();
            }
            metrics.count(command.event(), Outcome.APPLIED);
            return done;
        });
    }

    /**
     * The request cannot be applied to the order as it stands (the table forbids it, or If-Match names another
     * version): a duplicate is answered with success, anything else refused.
     */
    private Uni<Transitioned> settle(TransitionCommand command, Function<TransitionResult, Reply> render,
            OrderRepository.Snapshot snapshot, boolean versionOk) {
        Order current = snapshot.order();
        Uni<List<Transition>> history = snapshot.history() != null
                ? Uni.createFrom().item(snapshot.history())
                : orders.history(current.id());
        return history.map(steps -> {
            if (ConflictVerdict.judge(current.status(), command.event(), steps) == ConflictVerdict.DUPLICATE) {
                metrics.count(command.event(), Outcome.DUPLICATE);
                TransitionResult result = new TransitionResult(current, false);
                return new Transitioned(result, render.apply(result).replayed());
            }
            if (!versionOk) {
                throw new VersionMismatchException(command.ifMatch(), current.version());
            }
            metrics.count(command.event(), Outcome.ILLEGAL);
            throw new IllegalTransitionException(current.status(), command.event());
        });
    }

    private static boolean owns(String owner, Order order) {
        return owner == null || owner.equals(order.customerId());
    }
}
