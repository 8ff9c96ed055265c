package io.orderflow.webhooks;

import io.orderflow.common.Db;
import io.orderflow.common.PostgresArrays;
import io.orderflow.common.ResendSafety;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.hibernate.reactive.mutiny.Mutiny;

/**
 * What is owed to endpoints ({@code webhook_deliveries}) and what each attempt got ({@code webhook_attempts}). A
 * delivery is written by the relay's transaction (exactly once per endpoint and event), claimed by a worker in one
 * statement that moves its next attempt past the send's deadline (so a crash mid-send leaves it owed, not lost), and
 * settled by one statement that logs the attempt, reschedules or ends the delivery and keeps the endpoint's failure
 * clock, disabling it once it has failed for too long.
 */
@ApplicationScoped
public class WebhookDeliveries {

    /** A delivery to make now: its attempt number, the body to sign and send, where, and with which secrets. */
    record Due(UUID endpointId, UUID eventId, int attempt, String body, String url, List<String> secrets,
            double ageSeconds) {
    }

    /** What one attempt got: a status code, or an error (timeout, refused connection, refused target...). */
    record Outcome(Integer statusCode, String error, long durationMs) {

        boolean succeeded() {
            return statusCode != null && statusCode >= 200 && statusCode < 300;
        }
    }

    /** What settling an attempt did: the delivery's status after it, and whether it disabled the endpoint. */
    record Settled(long attemptId, String deliveryStatus, boolean disabledEndpoint) {
    }

    /** An attempt as the delivery log shows it. */
    public record Attempt(long id, UUID eventId, int attempt, Integer statusCode, String error, long durationMs,
            boolean manual, Instant at) {
    }

    private static final String DUE_COLUMNS = " returning cast(d.endpoint_id as text), cast(d.event_id as text),"
            + " d.attempts, d.body, e.url, e.secret, case when e.previous_secret_until > :now then e.previous_secret"
            + " end, cast(extract(epoch from cast(:now as timestamptz) - d.created_at) as float8)";

    private final Db db;

    public WebhookDeliveries(Db db) {
        this.db = db;
    }

    /**
     * In the relay's transaction: one delivery of each published event to every enabled endpoint whose types take
     * it, due at once. A relay that publishes an event again (after a crash) finds its deliveries there. With no
     * endpoint enabled the statement stops at its first condition, before looking up the round's events.
     */
    Uni<Integer> fanOut(Mutiny.StatelessSession session, List<UUID> eventIds, Instant at) {
        String ids = PostgresArrays.literal(new ArrayList<Object>(eventIds));
        return session.createNativeQuery("insert into webhook_deliveries (endpoint_id, event_id, aggregateid, seq,"
                + " type, body, status, next_attempt_at, created_at, updated_at) select e.id, o.id, o.aggregateid,"
                + " o.seq, o.type, cast(o.payload as text), 'PENDING', :at, :at, :at from outbox o"
                + " join webhook_endpoints e on e.status = 'enabled' and (e.types is null or o.type = any(e.types))"
                + " where exists (select 1 from webhook_endpoints where status = 'enabled')"
                + " and o.id = any(cast(cast(:ids as text) as uuid[])) on conflict do nothing")
                .setParameter("ids", ids).setParameter("at", at).executeUpdate();
    }

    /**
     * Up to {@code limit} deliveries due at {@code now} to enabled endpoints, each the oldest one still owed of its
     * order to its endpoint (an order's events reach an endpoint in their order; a delivery in flight holds back
     * its successors); rows another worker holds are skipped. Their next attempt moves to {@code leaseUntil}.
     */
    Uni<List<Due>> claim(int limit, Instant now, Instant leaseUntil) {
        // background work, like the relay's: not shed or counted with the requests' units of work
        return db.background(session -> session.<Object[]>createNativeQuery("with due as (select d.endpoint_id, d.event_id"
                + " from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id and e.status = 'enabled'"
                + " where d.status = 'PENDING' and d.next_attempt_at <= :now and not exists (select 1 from"
                + " webhook_deliveries p where p.endpoint_id = d.endpoint_id and p.aggregateid = d.aggregateid"
                + " and p.status = 'PENDING' and p.seq < d.seq) order by d.next_attempt_at limit :limit"
                + " for update of d skip locked) update webhook_deliveries d set attempts = d.attempts + 1,"
                + " next_attempt_at = :lease, updated_at = :now from due, webhook_endpoints e"
                + " where d.endpoint_id = due.endpoint_id and d.event_id = due.event_id and e.id = d.endpoint_id"
                + DUE_COLUMNS).setParameter("now", now).setParameter("lease", leaseUntil)
                .setParameter("limit", limit).getResultList())
                .map(rows -> rows.stream().map(WebhookDeliveries::due).toList());
    }

    /**
     * An operator's resend of one delivery, whatever its status: its next attempt number, or null when the endpoint
     * (not deleted) was never owed the event.
     */
    Uni<Due> drawManual(UUID endpointId, UUID eventId, Instant now) {
        return db.run(session -> session.<Object[]>createNativeQuery("update webhook_deliveries d set attempts ="
                + " d.attempts + 1, updated_at = :now from webhook_endpoints e where d.endpoint_id = :endpoint"
                + " and d.event_id = :event and e.id = d.endpoint_id and e.status <> 'deleted'" + DUE_COLUMNS)
                .setParameter("endpoint", endpointId).setParameter("event", eventId).setParameter("now", now)
                .getSingleResultOrNull()).map(row -> row == null ? null : due(row));
    }

    /**
     * Logs the attempt and settles its delivery: SUCCEEDED on a 2xx; else, for an automatic attempt still current,
     * due again at {@code retryAt}, or FAILED once the event is older than {@code giveUpBefore}. A success resets the
     * endpoint's failure clock; a failure starts it, and disables the endpoint once it started before
     * {@code giveUpBefore}. A manual attempt that succeeds ends a PENDING or FAILED delivery; one that fails changes
     * nothing but the log.
     */
    Uni<Settled> settle(Due due, Outcome outcome, boolean manual, Instant now, Instant retryAt,
            Instant giveUpBefore) {
        return db.background(session -> session.<Object[]>createNativeQuery("with attempt as (insert into webhook_attempts"
                + " (endpoint_id, event_id, attempt, status_code, error, duration_ms, manual, at) values (:endpoint,"
                + " :event, :attempt, :status, :error, :duration, :manual, :now) returning id),"
                + " delivery as (update webhook_deliveries d set status = case when :ok then 'SUCCEEDED'"
                + " when d.created_at <= :give_up then 'FAILED' else d.status end, next_attempt_at = case when :ok"
                + " or :manual then d.next_attempt_at else :retry end, updated_at = :now where d.endpoint_id = :endpoint"
                + " and d.event_id = :event and ((d.status = 'PENDING' and (:manual or d.attempts = :attempt)"
                + " and (:ok or not :manual)) or (:manual and :ok and d.status = 'FAILED')) returning d.status),"
                + " before as (select status, failing_since from webhook_endpoints where id = :endpoint for update),"
                + " endpoint as (update webhook_endpoints e set failing_since = case when :ok then null"
                + " else coalesce(e.failing_since, :now) end, status = case when not :ok and e.status = 'enabled'"
                + " and coalesce(e.failing_since, :now) <= :give_up then 'disabled' else e.status end,"
                + " disabled_reason = case when not :ok and e.status = 'enabled' and coalesce(e.failing_since, :now)"
                + " <= :give_up then 'every delivery failed since ' || to_char(coalesce(e.failing_since, :now) at time zone 'UTC',"
                + " 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') else e.disabled_reason end, updated_at = :now"
                + " where e.id = :endpoint and e.status <> 'deleted' returning e.status)"
                + " select (select id from attempt), (select status from delivery), coalesce((select status from before) = 'enabled'"
                + " and (select status from endpoint) = 'disabled', false)")
                .setParameter("endpoint", due.endpointId()).setParameter("event", due.eventId())
                .setParameter("attempt", due.attempt()).setParameter("status", outcome.statusCode())
                .setParameter("error", outcome.error()).setParameter("duration", (int) outcome.durationMs())
                .setParameter("manual", manual).setParameter("now", now).setParameter("ok", outcome.succeeded())
                .setParameter("retry", retryAt).setParameter("give_up", giveUpBefore).getSingleResult())
                .map(row -> new Settled(((Number) row[0]).longValue(), (String) row[1], Boolean.TRUE.equals(row[2])));
    }

    /** The endpoint's attempts after attempt {@code after}, oldest first. */
    Uni<List<Attempt>> attempts(UUID endpointId, long after, int limit) {
        return db.run(ResendSafety.READ, session -> session.<Object[]>createNativeQuery("select id, cast(event_id as text),"
                + " attempt, status_code, error, duration_ms, manual, at from webhook_attempts where endpoint_id = :endpoint"
                + " and id > :after order by id limit :limit").setParameter("endpoint", endpointId)
                .setParameter("after", after).setParameter("limit", limit).getResultList())
                .map(rows -> rows.stream().map(row -> new Attempt(((Number) row[0]).longValue(),
                        UUID.fromString((String) row[1]), ((Number) row[2]).intValue(),
                        row[3] == null ? null : ((Number) row[3]).intValue(), (String) row[4],
                        ((Number) row[5]).longValue(), (Boolean) row[6], instant(row[7]))).toList());
    }

    private static Due due(Object[] row) {
        List<String> secrets = row[6] == null ? List.of((String) row[5]) : List.of((String) row[5], (String) row[6]);
        return new Due(UUID.fromString((String) row[0]), UUID.fromString((String) row[1]),
                ((Number) row[2]).intValue(), (String) row[3], (String) row[4], secrets,
                ((Number) row[7]).doubleValue());
    }

    private static Instant instant(Object value) {
        if (value instanceof Instant instant) {
            return instant;
        }
        if (value instanceof OffsetDateTime offset) {
            return offset.toInstant();
        }
        return ((Timestamp) value).toInstant();
    }
}
