package io.orderflow.idempotency;

import io.orderflow.common.MicrosecondClock;
import io.orderflow.common.Reply;
import io.orderflow.common.ResendSafety;
import io.orderflow.common.problem.Problem;
import io.orderflow.common.problem.ProblemException;
import io.orderflow.common.problem.ProblemMapper;
import io.orderflow.common.problem.ProblemType;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Function;
import org.jboss.logging.Logger;

/**
 * Runs a state-changing request at most once per Idempotency-Key and answers every repeat with the stored first
 * response. Layers, fastest first: a copy of the request already running on this replica (its answer is handed
 * over), the Redis shutter (speed only), the dedup record written in the business statement (the judge), and
 * behind them all the state machine's compare-and-set.
 */
@ApplicationScoped
public class IdempotencyGate {

    private static final Logger LOG = Logger.getLogger(IdempotencyGate.class);

    private final InFlightRequests running;
    private final RedisIdempotencyCache shutter;
    private final IdempotencyRepository repository;
    private final OneTimeTokens tokens;
    private final ProblemMapper problems;
    private final IdempotencyMetrics metrics;
    private final IdempotencyConfig config;
    private final MicrosecondClock time;

    public IdempotencyGate(InFlightRequests running, RedisIdempotencyCache shutter, IdempotencyRepository repository,
            OneTimeTokens tokens, ProblemMapper problems, IdempotencyMetrics metrics, IdempotencyConfig config,
            MicrosecondClock time) {
        this.running = running;
        this.shutter = shutter;
        this.repository = repository;
        this.tokens = tokens;
        this.problems = problems;
        this.metrics = metrics;
        this.config = config;
        this.time = time;
    }

    /**
     * @param action the business work; when it writes a business row it writes
     *        {@link KeyClaim#sameStatementRecord} in the same statement and calls {@link KeyClaim#markRecorded}. It
     *        gets {@code null} for an unkeyed request.
     */
    public Uni<Reply> execute(KeyedRequest request, Function<KeyClaim, Uni<Reply>> action) {
        if (request.key() == null) {
            if (request.required()) {
                return Uni.createFrom().failure(ProblemException.of(ProblemType.IDEMPOTENCY_KEY_MISSING,
                        "Send an Idempotency-Key header (a unique value you generate and reuse on every retry)"));
            }
            return action.apply(null);
        }
        KeyClaim claim;
        try {
            claim = claimFor(request);
        } catch (ProblemException e) {
            return Uni.createFrom().failure(e);
        }
        return running.runOrJoin(claim, () -> throughLayers(request, claim, action),
                (fingerprint, reply) -> answerRepeat(claim, fingerprint, reply, IdempotencyMetrics.Layer.REPLICA),
                config.redis().inFlightWait());
    }

    private Uni<Reply> throughLayers(KeyedRequest request, KeyClaim claim, Function<KeyClaim, Uni<Reply>> action) {
        Duration check = config.redis().inFlightCheck();
        Duration rest = config.redis().inFlightWait().minus(check);
        return shutter.claimOrAwait(claim, check).chain(peek -> peek.kind() == RedisIdempotencyCache.Peek.Kind.IN_FLIGHT
                && !peek.differsFrom(claim) && !rest.isNegative()
                        ? answeredOnDatabase(request, claim)
                                .chain(answer -> answer != null ? Uni.createFrom().item(answer)
                                        : shutter.claimOrAwait(claim, rest)
                                                .chain(later -> decide(request, claim, action, later)))
                        : decide(request, claim, action, peek));
    }

    private Uni<Reply> decide(KeyedRequest request, KeyClaim claim, Function<KeyClaim, Uni<Reply>> action,
            RedisIdempotencyCache.Peek peek) {
        return switch (peek.kind()) {
            case DONE -> answerFromRedis(claim, peek);
            case IN_FLIGHT -> peek.differsFrom(claim) ? judgeOnDatabase(request, claim, action)
                    : answerInFlight(request, claim);
            case CLAIMED, UNAVAILABLE -> redeemIfToken(request, claim)
                    .chain(() -> runOnDatabase(request, claim, action))
                    .onFailure().call(() -> shutter.release(claim));
        };
    }

    /**
     * The holder's stored answer, when it has one (then replayed, and put in Redis in place of the marker it left),
     * or null while the holder is still at work.
     */
    private Uni<Reply> answeredOnDatabase(KeyedRequest request, KeyClaim claim) {
        return repository.find(claim.scope(), claim.key()).map(existing -> {
            if (existing == null || !existing.answered()) {
                return null;
            }
            Reply reply = replay(request, claim, existing);
            rememberInBackground(claim, reply);
            return reply;
        });
    }

    /**
     * A caller's key may be a one-time token; a provider's event id never is: provider event ids live in the
     * provider's own namespace, whatever they start with ({@code tok_...} included).
     */
    private Uni<Void> redeemIfToken(KeyedRequest request, KeyClaim claim) {
        return request.caller().startsWith("provider:") ? Uni.createFrom().voidItem()
                : tokens.redeemIfToken(claim.key(), request.caller(), claim.scope());
    }

    /** The first answer, replayed to a repeat whose body matches the first one's; {@code layer} found it. */
    private Reply answerRepeat(KeyClaim claim, String firstFingerprint, Reply first, IdempotencyMetrics.Layer layer) {
        if (!claim.fingerprint().equals(firstFingerprint)) {
            metrics.mismatch();
            throw reused();
        }
        metrics.replayed(layer);
        claim.markAnsweredBefore();
        return first.replayed();
    }

    private KeyClaim claimFor(KeyedRequest request) {
        String key = IdempotencyKeys.parse(request.key());
        String scope = request.caller() + " " + request.operation() + " " + request.target();
        Instant now = time.now();
        return new KeyClaim(scope, key, IdempotencyKeys.fingerprint(request.canonicalBody()), request.tier(), now,
                now.plus(request.tier().retention(config)), request.orderId());
    }

    private Uni<Reply> answerFromRedis(KeyClaim claim, RedisIdempotencyCache.Peek peek) {
        return Uni.createFrom().item(
                () -> answerRepeat(claim, peek.fingerprint(), peek.reply(), IdempotencyMetrics.Layer.REDIS));
    }

    /** Redis says someone still holds the key after the wait; the database knows whether they have finished. */
    private Uni<Reply> answerInFlight(KeyedRequest request, KeyClaim claim) {
        return repository.find(claim.scope(), claim.key()).map(existing -> {
            if (existing == null || existing.state() == DedupRecord.State.PENDING) {
                metrics.inFlight();
                throw new ProblemException(Problem.of(ProblemType.REQUEST_IN_FLIGHT,
                        "The first request with this key has not finished; retry after a moment"), "1");
            }
            return replay(request, claim, existing);
        });
    }

    /**
     * Another body holds the key in Redis (a copy on another replica, most likely). Its marker is written before
     * PostgreSQL decides, so it is no verdict: the dedup record is. If the holder's record is there, this repeat is
     * answered from it at once (422 for another body); if not, this request runs on the database like any other,
     * and the unique dedup record lets exactly one of the two bodies win. The holder's marker is not ours to release.
     */
    private Uni<Reply> judgeOnDatabase(KeyedRequest request, KeyClaim claim, Function<KeyClaim, Uni<Reply>> action) {
        return repository.find(claim.scope(), claim.key()).chain(existing -> existing != null && existing.answered()
                ? Uni.createFrom().item(() -> replay(request, claim, existing))
                : redeemIfToken(request, claim).chain(() -> runOnDatabase(request, claim, action)));
    }

    private Uni<Reply> runOnDatabase(KeyedRequest request, KeyClaim claim, Function<KeyClaim, Uni<Reply>> action) {
        return action.apply(claim)
                .onFailure(failure -> !isDuplicateKeyFailure(failure) && problems.toProblem(failure).isDecision())
                .recoverWithItem(problems::toReply)
                .chain(reply -> claim.isRecorded() ? Uni.createFrom().item(reply) : store(request, claim, reply))
                .onFailure(IdempotencyGate::isDuplicateKeyFailure)
                .recoverWithUni(() -> repository.find(claim.scope(), claim.key())
                        .map(found -> replay(request, claim, found)))
                .invoke(reply -> rememberInBackground(claim, reply));
    }

    /**
     * Caches the answer in Redis without holding the response back for it: the answer is already safe in
     * PostgreSQL, and a repeat arriving before the cache is written waits on the in-flight marker, then replays.
     */
    private void rememberInBackground(KeyClaim claim, Reply reply) {
        // an answer no store may keep (a payment credential) is not cached: its in-flight marker goes instead, so a
        // repeat asks PostgreSQL at once rather than wait out the marker
        // deferred: a failure while building the command must not fail a request whose answer is already committed
        Uni<Void> write = Uni.createFrom().deferred(() -> reply.isNoStore() ? shutter.release(claim)
                : shutter.remember(claim, reply));
        // both count and recover from Redis failures themselves (RedisOutageTest); anything else reaching here is a
        // bug worth a log line
        write.subscribe().with(ignored -> {
        }, failure -> LOG.warnf("Caching an answer in Redis failed: %s", failure.toString()));
    }

    /** Stores an outcome that wrote no business row (a duplicate, a business failure); a racer may have won. */
    private Uni<Reply> store(KeyedRequest request, KeyClaim claim, Reply reply) {
        return repository.insertOrFind(claim.record(reply))
                .map(winner -> winner == null ? reply : replay(request, claim, winner));
    }

    private Reply replay(KeyedRequest request, KeyClaim claim, DedupRecord existing) {
        if (existing == null || !existing.answered()) {
            throw new ProblemException(Problem.of(ProblemType.REQUEST_IN_FLIGHT,
                    "The first request with this key has not finished; retry after a moment"), "1");
        }
        if (existing.state() == DedupRecord.State.EXPIRED) {
            metrics.expired();
            throw ProblemException.of(ProblemType.IDEMPOTENCY_KEY_EXPIRED,
                    "This key was used more than its retention ago; send a new key for a new request");
        }
        if (!claim.fingerprint().equals(existing.fingerprint())) {
            return answerRepeat(claim, existing.fingerprint(), null, IdempotencyMetrics.Layer.DATABASE);
        }
        Reply first = existing.reply() != null ? existing.reply() : request.renderResult().apply(existing.result());
        return answerRepeat(claim, existing.fingerprint(), first, IdempotencyMetrics.Layer.DATABASE);
    }

    private static ProblemException reused() {
        return ProblemException.of(ProblemType.IDEMPOTENCY_KEY_REUSED,
                "This Idempotency-Key was first used with a different request body");
    }

    /** The key's record stands: a racer's, or this request's own first copy whose answer was lost. */
    private static boolean isDuplicateKeyFailure(Throwable failure) {
        Throwable cause = ProblemMapper.unwrap(failure);
        return IdempotencyRepository.isDuplicateKey(cause) || cause instanceof ResendSafety.FirstCopyCommitted;
    }
}
