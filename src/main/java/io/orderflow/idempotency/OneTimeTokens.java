package io.orderflow.idempotency;

import io.orderflow.common.MicrosecondClock;
import io.orderflow.common.problem.ProblemException;
import io.orderflow.common.problem.ProblemType;
import io.orderflow.common.Db;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;

/**
 * Server-issued one-time submit tokens, for forms: the page gets a token, the submit sends it as its
 * Idempotency-Key. The first request consumes it atomically (a compare-and-set on the row); a replay of that same
 * request is answered from the stored response; any other use, an unknown or an expired token is refused.
 */
@ApplicationScoped
public class OneTimeTokens {

    public static final String PREFIX = "tok_";
    private static final SecureRandom RANDOM = new SecureRandom();

    @ConfigMapping(prefix = "idempotency.tokens")
    public interface Config {
        /** How long an issued token may wait for its submit. */
        @WithDefault("15m")
        Duration ttl();
    }

    private final Db db;
    private final Config config;
    private final MicrosecondClock time;

    public OneTimeTokens(Db db, Config config, MicrosecondClock time) {
        this.db = db;
        this.config = config;
        this.time = time;
    }

    public Uni<SubmitToken> issue(String caller) {
        byte[] random = new byte[16];
        RANDOM.nextBytes(random);
        SubmitToken token = new SubmitToken();
        token.token = PREFIX + HexFormat.of().formatHex(random);
        token.caller = caller;
        token.issuedAt = time.now();
        token.expiresAt = token.issuedAt.plus(config.ttl());
        return db.run(session -> session.insert(token)).replaceWith(token);
    }

    /**
     * Binds a token to the request's scope on first use. Keys that are not tokens pass untouched. The same
     * request again (same scope) passes, so that its stored response can be replayed even after the token's TTL.
     */
    public Uni<Void> redeemIfToken(String key, String caller, String scope) {
        if (!key.startsWith(PREFIX)) {
            return Uni.createFrom().voidItem();
        }
        return db.run(session -> session.createNamedQuery(SubmitToken.REDEEM)
                .setParameter("scope", scope).setParameter("now", time.now()).setParameter("token", key)
                .setParameter("caller", caller).executeUpdate())
                .map(updated -> {
                    if (updated != 1) {
                        throw ProblemException.of(ProblemType.TOKEN_INVALID,
                                "The token is unknown, expired, issued to someone else or already used elsewhere;"
                                        + " get a new one from POST /idempotency-tokens");
                    }
                    return null;
                });
    }

    /**
     * Deletes up to {@code batch} submit tokens that expired longer than {@code grace} ago and that no dedup record
     * needs any more: a used token keys its request's record, and a replay must find the token for as long as the
     * record stands (its own purge comes first).
     */
    public Uni<Integer> purgeExpired(Duration grace, int batch) {
        return db.run(session -> session.createNativeQuery("delete from submit_tokens t using (select token"
                + " from submit_tokens s where expires_at <= now() - make_interval(secs => :grace)"
                + " and not exists (select 1 from idempotency_keys k where k.scope = s.consumed_scope"
                + " and k.idem_key = s.token) order by expires_at limit :batch for update skip locked) old"
                + " where t.token = old.token")
                .setParameter("grace", (double) grace.toSeconds()).setParameter("batch", batch).executeUpdate());
    }
}
