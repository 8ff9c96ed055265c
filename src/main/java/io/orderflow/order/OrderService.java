package io.orderflow.order;

import io.orderflow.common.MicrosecondClock;
import io.orderflow.common.Reply;
import io.orderflow.common.SameStatementWrite;
import io.orderflow.common.TraceContext;
import io.orderflow.common.problem.Problem;
import io.orderflow.common.problem.ProblemException;
import io.orderflow.common.problem.ProblemType;
import io.orderflow.idempotency.KeyClaim;
import io.orderflow.order.TransitionMetrics.Outcome;
import io.orderflow.order.TransitionParticipant.Participation;
import io.orderflow.order.domain.AmountMismatchException;
import io.orderflow.order.domain.ConflictVerdict;
import io.orderflow.order.domain.EventDetails;
import io.orderflow.order.domain.IllegalTransitionException;
import io.orderflow.order.domain.NotConcernedException;
import io.orderflow.order.domain.Order;
import io.orderflow.order.domain.OrderNotFoundException;
import io.orderflow.order.domain.TransitionConflictException;
import io.orderflow.order.domain.VersionMismatchException;
import io.orderflow.order.persistence.OrderMapping;
import io.orderflow.order.persistence.OrderMove;
import io.orderflow.order.persistence.OrderRepository;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;

/**
 * The one transition path. REST calls and provider callbacks both end in {@link #transition}: one statement that
 * moves the order if the table (and If-Match, the owner, a provider's amount) allows, writing the history row and
 * the request's idempotency record with it. When nothing moved, the same statement returned the order as it stands
 * and its history, and {@link ConflictVerdict} decides: a duplicate (success, nothing written), a conflict, or a
 * refusal. A first-time transition, a keyless duplicate and an illegal request each cost one round trip.
 */
@ApplicationScoped
public class OrderService {

    /** CAS attempts per request before giving up with a 503; only reached under pathological contention. */
    static final int MAX_ATTEMPTS = 8;

    private final OrderRepository orders;
    private final OrderLookup lookup;
    private final OrderMapping mapping;
    private final TransitionMetrics metrics;
    private final MicrosecondClock time;

    private final List<TransitionParticipant> participants;

    public OrderService(OrderRepository orders, OrderLookup lookup, OrderMapping mapping, TransitionMetrics metrics,
            MicrosecondClock time, @Any Instance<TransitionParticipant> participants) {
        this.orders = orders;
        this.lookup = lookup;
        this.mapping = mapping;
        this.metrics = metrics;
        this.time = time;
        this.participants = participants.stream().toList();
    }

    /** What a transition produced: the result, and the reply rendered for it. */
    public record Transitioned(TransitionResult result, Reply reply) {
    }

    /** The order as {@code owner} (null: an operator) may see it ({@link OrderLookup#find}). */
    public Uni<Order> find(UUID id, String owner) {
        return lookup.find(id, owner);
    }

    /**
     * The order as a keyed request's write recorded it with its idempotency record (the JSON of the row, see
     * {@link KeyClaim#sameStatementRecord}): what a repeat of that request is answered with.
     */
    public Order recordedOrder(String row) {
        return mapping.fromRowJson(row);
    }

    /**
     * Stores a new order; with a claim, its idempotency record goes into the same statement, and so do what the
     * participants write with a creation (its event).
     */
    public Uni<Reply> create(Order order, KeyClaim claim, Function<Order, Reply> render) {
        List<SameStatementWrite> writes = new ArrayList<>(recordOf(claim));
        participants.forEach(participant -> writes.addAll(participant.creationWrites()));
        return orders.insert(order, writes).map(stored -> {
            recorded(claim);
            return render.apply(stored);
        });
    }

    /**
     * @param render turns the result into the reply; a keyed request's record holds the moved row, which the gate
     *        renders with the same function for a repeat
     */
    public Uni<Transitioned> transition(TransitionCommand command, KeyClaim claim,
            Function<TransitionResult, Reply> render) {
        Instant now = time.now();
        return participation(command, now).chain(part -> attempt(command, claim, render, part, 1)
                .call(done -> part.afterwards().apply(done.result().applied()))
                .onFailure(OrderService::decidedNotToMove).call(failure -> part.afterwards().apply(false)));
    }

    /**
     * A replayed 200 of a keyed request, with what participants add to it again (see
     * {@link TransitionParticipant#replayReply}); a replay that still carries it (handed over in memory from the
     * first copy) is left as it is.
     */
    public Uni<Reply> withReplayReply(TransitionCommand command, Reply replayed) {
        if (replayed.status() != 200 || replayed.isNoStore()) {
            return Uni.createFrom().item(replayed);
        }
        Uni<Map<String, Object>> all = Uni.createFrom().item(Map.of());
        for (TransitionParticipant participant : participants) {
            all = all.chain(sofar -> participant.replayReply(command).map(more -> {
                Map<String, Object> merged = new HashMap<>(sofar);
                merged.putAll(more);
                return merged;
            }));
        }
        return all.map(additions -> additions.isEmpty() ? replayed : replayed.withNeverStoredMembers(additions));
    }

    /** What every participant adds to this transition, asked once per request (not per compare-and-set). */
    private Uni<Participation> participation(TransitionCommand command, Instant now) {
        Uni<Participation> all = Uni.createFrom().item(Participation.NONE);
        for (TransitionParticipant participant : participants) {
            all = all.chain(sofar -> participant.participate(command, now).map(sofar::and));
        }
        return all;
    }

    /** A refusal decided from the order as it stands: the statement did not move it (unlike a timeout). */
    private static boolean decidedNotToMove(Throwable failure) {
        return failure instanceof IllegalTransitionException || failure instanceof TransitionConflictException
                || failure instanceof VersionMismatchException || failure instanceof AmountMismatchException
                || failure instanceof NotConcernedException || failure instanceof OrderNotFoundException;
    }

    private Uni<Transitioned> attempt(TransitionCommand command, KeyClaim claim,
            Function<TransitionResult, Reply> render, Participation part, int attempt) {
        if (attempt > MAX_ATTEMPTS) {
            return Uni.createFrom().failure(new ProblemException(Problem.of(ProblemType.SERVICE_UNAVAILABLE,
                    "The order is changing too fast; retry"), "1"));
        }
        List<SameStatementWrite> writes = new ArrayList<>(recordOf(claim));
        writes.addAll(part.writes());
        return orders.transition(move(command), time.now(), writes, part.changes()).chain(outcome -> {
            if (outcome == null || !OrderLookup.owns(command.owner(), outcome.order())) {
                throw new OrderNotFoundException(command.orderId());
            }
            if (outcome.moved()) {
                recorded(claim);
                metrics.count(command.event(), Outcome.APPLIED);
                TransitionLog.applied(command, outcome.order());
                return Uni.createFrom().item(done(render, outcome.order(), true, part.reply()));
            }
            return switch (ConflictVerdict.judge(outcome.order(), command.event(), command.details(),
                    command.ifMatch(), outcome.history())) {
                case RETRY -> attempt(command, claim, render, part, attempt + 1);
                case DUPLICATE -> {
                    metrics.count(command.event(), Outcome.DUPLICATE);
                    Transitioned duplicate = done(render, outcome.order(), false, Map.of());
                    yield Uni.createFrom().item(new Transitioned(duplicate.result(), duplicate.reply().replayed()));
                }
                case CONFLICT -> throw refused(command, new TransitionConflictException(command.event(),
                        ConflictVerdict.lastMoveFromWhere(command.event(), outcome.history()).orElseThrow()
                                .details()));
                case VERSION_MISMATCH -> throw new VersionMismatchException(command.ifMatch(),
                        outcome.order().version());
                case AMOUNT_MISMATCH -> {
                    EventDetails.ProviderReport report = (EventDetails.ProviderReport) command.details();
                    throw new AmountMismatchException(outcome.order(), report.amount(), report.currency());
                }
                case NOT_CONCERNED -> throw new NotConcernedException(outcome.order(), command.event());
                case ILLEGAL -> throw refused(command,
                        new IllegalTransitionException(outcome.order().status(), command.event()));
            };
        });
    }

    /** What the transition statement checks and writes of the command. */
    private static OrderMove move(TransitionCommand command) {
        return new OrderMove(command.orderId(), command.event(), command.details(), command.ifMatch(),
                command.owner(), command.source(), command.actor(), command.requestKey(), TraceContext.current());
    }

    private RuntimeException refused(TransitionCommand command, RuntimeException why) {
        metrics.count(command.event(), Outcome.ILLEGAL);
        return why;
    }

    private static Transitioned done(Function<TransitionResult, Reply> render, Order order, boolean applied,
            Map<String, Object> additions) {
        TransitionResult result = new TransitionResult(order, applied, additions);
        return new Transitioned(result, render.apply(result));
    }

    private static List<SameStatementWrite> recordOf(KeyClaim claim) {
        return claim == null ? List.of() : List.of(claim.sameStatementRecord());
    }

    private static void recorded(KeyClaim claim) {
        if (claim != null) {
            claim.markRecorded();
        }
    }
}
