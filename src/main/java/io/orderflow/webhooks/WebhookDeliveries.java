package io.orderflow.webhooks;

import io.orderflow.common.Db;
import io.orderflow.common.NativeValues;
import io.orderflow.common.PostgresArrays;
import io.orderflow.common.ResendSafety;
import io.orderflow.events.FeedEvent;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.Function;

/**
 * Deliveries that did not go through at once ({@code webhook_deliveries}) and the delivery log
 * ({@code webhook_attempts}). An event reaches an endpoint through the endpoint's cursor; only when its attempt
 * fails does it get a row, written with the attempt's log line and the endpoint's failure clock in one statement,
 * and so do the events of the same order that come after it (held: an order's events reach an endpoint in their
 * order). A row is retried by backoff until it succeeds or is given up; the oldest row of an order to an endpoint
 * goes first.
 */
@ApplicationScoped
public class WebhookDeliveries {

    /** A delivery to make now: its attempt number, the body to sign and send, where, and with which secrets. */
    record Due(UUID endpointId, UUID eventId, UUID orderId, long position, int attempt, String body, String url,
            List<String> secrets, double ageSeconds, String trace) {
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
            + " d.aggregateid, d.position, d.attempts, d.body, e.url, e.secret, case when e.previous_secret_until"
            + " > :now then e.previous_secret end, cast(extract(epoch from cast(:now as timestamptz) - d.created_at)"
            + " as float8), d.trace";

    /**
     * The endpoint's failure clock after an attempt: a success stops it; a failure starts it, and disables the
     * endpoint once it started before {@code :give_up}. Returns whether this attempt disabled it.
     */
    private static final String FAILURE_CLOCK = " before as (select status, failing_since from webhook_endpoints"
            + " where id = :endpoint for update), endpoint as (update webhook_endpoints e set failing_since = case"
            + " when :ok then null else coalesce(e.failing_since, :now) end, status = case when not :ok and e.status"
            + " = 'enabled' and coalesce(e.failing_since, :now) <= :give_up then 'disabled' else e.status end,"
            + " disabled_reason = case when not :ok and e.status = 'enabled' and coalesce(e.failing_since, :now)"
            + " <= :give_up then 'every delivery failed since ' || to_char(coalesce(e.failing_since, :now) at time"
            + " zone 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') else e.disabled_reason end, updated_at = :now"
            + " where e.id = :endpoint and e.status <> 'deleted' returning e.status)";

    private static final String DISABLED_NOW = "coalesce((select status from before) = 'enabled'"
            + " and (select status from endpoint) = 'disabled', false)";

    private final Db db;

    public WebhookDeliveries(Db db) {
        this.db = db;
    }

    /**
     * The first attempt at {@code event} failed: the delivery is owed from now on, due again at {@code retryAt};
     * the attempt is logged and the endpoint's failure clock runs.
     */
    Uni<Settled> failedFirst(Due due, String type, Outcome outcome, Instant now, Instant retryAt,
            Instant giveUpBefore) {
        return db.background(session -> session.<Object[]>createNativeQuery("with delivery as (insert into"
                + " webhook_deliveries (endpoint_id, event_id, aggregateid, position, type, body, trace, status,"
                + " attempts, next_attempt_at, created_at, updated_at) values (:endpoint, :event, :order, :position,"
                + " :type, :body, :trace, 'PENDING', 1, :retry, :now, :now) on conflict do nothing returning status),"
                + " attempt as (insert into webhook_attempts (endpoint_id, event_id, attempt, status_code, error,"
                + " duration_ms, manual, at) values (:endpoint, :event, 1, :status, :error, :duration, false, :now)"
                + " returning id)," + FAILURE_CLOCK + " select (select id from attempt), 'PENDING', " + DISABLED_NOW)
                .setParameter("endpoint", due.endpointId()).setParameter("event", due.eventId())
                .setParameter("order", due.orderId().toString()).setParameter("position", due.position())
                .setParameter("type", type)
                .setParameter("body", due.body()).setParameter("trace", due.trace()).setParameter("retry", retryAt)
                .setParameter("now", now).setParameter("status", outcome.statusCode())
                .setParameter("error", outcome.error()).setParameter("duration", (int) outcome.durationMs())
                .setParameter("ok", false).setParameter("give_up", giveUpBefore).getSingleResult())
                .map(WebhookDeliveries::settled);
    }

    /**
     * Events held behind an earlier one of their order that is being retried: owed, due at once, sent after it (the
     * claim takes an order's oldest first).
     */
    Uni<Integer> hold(UUID endpointId, List<FeedEvent> events, Instant now) {
        return db.background(session -> session.createNativeQuery("insert into webhook_deliveries (endpoint_id,"
                + " event_id, aggregateid, position, type, body, trace, status, attempts, next_attempt_at, created_at,"
                + " updated_at) select :endpoint, v.id, v.o, v.p, v.t, v.b, v.tr, 'PENDING', 0, :now, :now, :now from"
                + " unnest(cast(cast(:ids as text) as uuid[]), cast(cast(:orders as text) as text[]),"
                + " cast(cast(:positions as text) as bigint[]), cast(cast(:types as text) as text[]),"
                + " cast(cast(:bodies as text) as text[]), cast(cast(:traces as text) as text[])) v(id, o, p, t, b, tr)"
                + " on conflict do nothing").setParameter("endpoint", endpointId)
                .setParameter("ids", literal(events, FeedEvent::id))
                .setParameter("orders", literal(events, FeedEvent::orderId))
                .setParameter("positions", literal(events, FeedEvent::position))
                .setParameter("types", literal(events, FeedEvent::type))
                .setParameter("bodies", literal(events, FeedEvent::json))
                .setParameter("traces", literal(events, FeedEvent::trace)).setParameter("now", now).executeUpdate());
    }

    /**
     * Up to {@code limit} deliveries due at {@code now} to the given endpoints (enabled ones), at most
     * {@code perEndpoint} to one, each the oldest one still owed of its order to its endpoint; rows another
     * dispatcher holds are skipped. Their next attempt moves to {@code leaseUntil}, so a crash mid-send leaves them
     * owed.
     */
    Uni<List<Due>> claim(List<UUID> endpoints, int perEndpoint, int limit, Instant now, Instant leaseUntil) {
        return db.background(session -> session.<Object[]>createNativeQuery("with due as (select d.endpoint_id,"
                + " d.event_id from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id and e.status"
                + " = 'enabled' where d.endpoint_id = any(cast(cast(:endpoints as text) as uuid[])) and d.status ="
                + " 'PENDING' and d.next_attempt_at <= :now and not exists (select 1 from webhook_deliveries p where"
                + " p.endpoint_id = d.endpoint_id and p.aggregateid = d.aggregateid and p.status = 'PENDING' and"
                + " p.position < d.position) order by d.next_attempt_at limit :limit for update of d skip locked),"
                + " fair as (select endpoint_id, event_id from (select *, row_number() over (partition by endpoint_id)"
                + " as n from due) r where n <= :per_endpoint) update webhook_deliveries d set attempts = d.attempts"
                + " + 1, next_attempt_at = :lease, updated_at = :now from fair, webhook_endpoints e where d.endpoint_id"
                + " = fair.endpoint_id and d.event_id = fair.event_id and e.id = d.endpoint_id" + DUE_COLUMNS)
                .setParameter("endpoints", PostgresArrays.literal(new ArrayList<Object>(endpoints)))
                .setParameter("now", now).setParameter("lease", leaseUntil).setParameter("limit", limit)
                .setParameter("per_endpoint", perEndpoint).getResultList())
                .map(rows -> rows.stream().map(WebhookDeliveries::due).toList());
    }

    /** The orders of the given endpoints that have a delivery owed: their next events wait behind it. */
    Uni<List<Object[]>> owedOrders(List<UUID> endpoints) {
        return db.background(session -> session.<Object[]>createNativeQuery("select distinct cast(endpoint_id as"
                + " text), aggregateid from webhook_deliveries where endpoint_id = any(cast(cast(:endpoints as text) as"
                + " uuid[])) and status = 'PENDING'")
                .setParameter("endpoints", PostgresArrays.literal(new ArrayList<Object>(endpoints))).getResultList());
    }

    /**
     * An operator's resend of one delivery, whatever its status: its next attempt number, or null when the endpoint
     * (not deleted) has no delivery of the event (it went through at its first attempt, or was never owed).
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
     * due again at {@code retryAt}, or FAILED once the event is older than {@code giveUpBefore}. The endpoint's
     * failure clock follows (see {@link #FAILURE_CLOCK}). A manual attempt that succeeds ends a PENDING or FAILED
     * delivery; one that fails changes nothing but the log.
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
                + FAILURE_CLOCK + " select (select id from attempt), (select status from delivery), " + DISABLED_NOW)
                .setParameter("endpoint", due.endpointId()).setParameter("event", due.eventId())
                .setParameter("attempt", due.attempt()).setParameter("status", outcome.statusCode())
                .setParameter("error", outcome.error()).setParameter("duration", (int) outcome.durationMs())
                .setParameter("manual", manual).setParameter("now", now).setParameter("ok", outcome.succeeded())
                .setParameter("retry", retryAt).setParameter("give_up", giveUpBefore).getSingleResult())
                .map(WebhookDeliveries::settled);
    }

    /** A first attempt went through after earlier ones failed: the endpoint's failure clock stops. */
    Uni<Integer> recovered(UUID endpointId, Instant now) {
        return db.background(session -> session.createNativeQuery("update webhook_endpoints set failing_since ="
                + " null, updated_at = :now where id = :endpoint and failing_since is not null")
                .setParameter("endpoint", endpointId).setParameter("now", now).executeUpdate());
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
                        ((Number) row[5]).longValue(), (Boolean) row[6], NativeValues.instant(row[7]))).toList());
    }

    private static Settled settled(Object[] row) {
        return new Settled(((Number) row[0]).longValue(), (String) row[1], Boolean.TRUE.equals(row[2]));
    }

    private static Due due(Object[] row) {
        List<String> secrets = row[8] == null ? List.of((String) row[7]) : List.of((String) row[7], (String) row[8]);
        return new Due(UUID.fromString((String) row[0]), UUID.fromString((String) row[1]),
                UUID.fromString((String) row[2]), NativeValues.number(row[3]), ((Number) row[4]).intValue(),
                (String) row[5], (String) row[6], secrets, ((Number) row[9]).doubleValue(), (String) row[10]);
    }

    private static String literal(List<FeedEvent> events, Function<FeedEvent, Object> value) {
        return PostgresArrays.literal(events.stream().map(value).toList());
    }
}
