package io.orderflow.idempotency;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.orderflow.support.Sql;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.vertx.VertxContextSupport;
import jakarta.inject.Inject;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

@QuarkusTest
class IdempotencySweeperTest {

    @Inject
    IdempotencySweeper sweeper;

    /**
     * One sweep as the scheduler runs it: on a Vert.x duplicated context of its own, flagged safe for Hibernate
     * Reactive (nothing is captured around Mutiny callbacks, so a sweep started from a test thread would have none).
     */
    private IdempotencySweeper.Swept sweep() {
        try {
            return VertxContextSupport.subscribeAndAwait(sweeper::sweep);
        } catch (Throwable failure) {
            throw new CompletionException(failure);
        }
    }

    private static void rows(int n, String scope, String state, String expiresAt, String expiredAt) {
        Sql.update("insert into idempotency_keys (scope, idem_key, tier, state, fingerprint, created_at, expires_at,"
                + " expired_at) select ?, gen_random_uuid()::text, 'ORDERS', ?, 'f', now() - interval '60 days',"
                + " now() + ?::interval, now() + ?::interval from generate_series(1, ?)",
                scope, state, expiresAt, expiredAt, n);
    }

    private static long count(String scope, String state) {
        return Sql.count("select count(*) from idempotency_keys where scope = ? and state = ?", scope, state);
    }

    @Test
    void shouldMarkDueRowsExpiredAndPurgeOnlyAfterTheGracePeriodWithTwoSweepersAtOnce() {
        String scope = "sweep-test " + UUID.randomUUID();
        rows(1200, scope, "DONE", "-1 day", "0 seconds");
        rows(30, scope, "DONE", "1 day", "0 seconds");
        rows(30, scope, "EXPIRED", "-20 days", "-1 day");
        rows(30, scope, "EXPIRED", "-20 days", "-8 days");
        ExecutorService twoSweepers = Executors.newFixedThreadPool(2);
        CompletableFuture<IdempotencySweeper.Swept> a = CompletableFuture.supplyAsync(this::sweep, twoSweepers);
        CompletableFuture<IdempotencySweeper.Swept> b = CompletableFuture.supplyAsync(this::sweep, twoSweepers);
        IdempotencySweeper.Swept first = a.orTimeout(60, TimeUnit.SECONDS).join();
        IdempotencySweeper.Swept second = b.orTimeout(60, TimeUnit.SECONDS).join();
        twoSweepers.shutdown();

        assertEquals(30, count(scope, "DONE"), "rows not yet due stay");
        assertEquals(1200 + 30, count(scope, "EXPIRED"), "due rows are marked, recently expired ones kept");
        assertEquals(0, Sql.count("select count(*) from idempotency_keys where scope = ? and state = 'EXPIRED'"
                + " and expired_at < now() - interval '7 days'", scope), "rows past the grace period are purged");
        assertTrue(first.expired() + second.expired() >= 1200, "both sweepers together marked every due row");
        assertTrue(first.purged() + second.purged() >= 30, "and purged every row past its grace");
    }

    private static String token(String name, String expiresAt, String consumedScope) {
        String token = OneTimeTokens.PREFIX + name + "-" + UUID.randomUUID();
        Sql.update("insert into submit_tokens (token, caller, issued_at, expires_at, consumed_scope, consumed_at)"
                + " values (?, 'customer:c-sweep', now() - interval '30 days', now() + ?::interval, ?,"
                + " case when ?::text is null then null else now() - interval '29 days' end)",
                token, expiresAt, consumedScope, consumedScope);
        return token;
    }

    private static boolean exists(String token) {
        return Sql.count("select count(*) from submit_tokens where token = ?", token) == 1;
    }

    @Test
    void shouldPurgeSubmitTokensAfterTheGracePeriodOnceNoRecordNeedsThem() {
        String scope = "customer:c-sweep POST /orders " + UUID.randomUUID();
        String unusedLongExpired = token("unused-old", "-8 days", null);
        String unusedRecentlyExpired = token("unused-recent", "-1 day", null);
        String unusedValid = token("unused-valid", "10 minutes", null);
        String usedWithoutRecord = token("used-no-record", "-8 days", scope);
        String usedWithRecord = token("used-record", "-8 days", scope + " kept");
        Sql.update("insert into idempotency_keys (scope, idem_key, tier, state, fingerprint, created_at, expires_at)"
                + " values (?, ?, 'ORDERS', 'DONE', 'f', now() - interval '9 days', now() + interval '1 day')",
                scope + " kept", usedWithRecord);

        IdempotencySweeper.Swept swept = sweep();

        assertTrue(swept.tokensPurged() >= 2, "the sweep reports what it purged: " + swept);
        assertEquals(List.of(false, true, true, false, true),
                List.of(exists(unusedLongExpired), exists(unusedRecentlyExpired), exists(unusedValid),
                        exists(usedWithoutRecord), exists(usedWithRecord)),
                "purged: expired past the grace and needed by no record; kept: in grace, valid, keying a record");
    }
}
