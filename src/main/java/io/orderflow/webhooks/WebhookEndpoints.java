package io.orderflow.webhooks;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.orderflow.common.Db;
import io.orderflow.common.PostgresArrays;
import io.orderflow.common.ResendSafety;
import io.orderflow.common.SameStatementWrite;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.hibernate.reactive.mutiny.Mutiny;

/**
 * Registered endpoints in PostgreSQL ({@code webhook_endpoints}). Every write is one statement; a creation and a
 * rotation carry their request's idempotency record in it (the endpoint's id, no secret), so a retried request answers
 * the endpoint as it is now instead of making a second endpoint or rotating twice. A deletion marks the row and cancels what it was
 * owed; nothing is deleted.
 */
@ApplicationScoped
public class WebhookEndpoints {

    /** A new endpoint: where, for which types (null: all), described how, with which secret. */
    record Registration(UUID id, String url, List<String> types, String description, String secret, Instant at) {
    }

    private static final String AS_JSON = " select cast(to_jsonb(r) as text) from r";

    /** Registrations and enablings take turns under it: the limit of enabled endpoints is counted by one at a time. */
    static final long LIMIT_LOCK = 0x7765_6268_6f6f_6bL; // "webhook"

    /** Whether one more endpoint may be enabled. */
    private static final String ROOM = "(select count(*) from webhook_endpoints where status = 'enabled') < :max";

    private final Db db;
    private final ObjectMapper json;

    public WebhookEndpoints(Db db, ObjectMapper json) {
        this.db = db;
        this.json = json;
    }

    /**
     * Stores a new endpoint, enabled, reading the feed from its current end; null when {@code maxEnabled} endpoints
     * are enabled already. Registrations and enablings take turns ({@link #LIMIT_LOCK}), so the limit holds exactly.
     */
    Uni<WebhookEndpoint> create(Registration registration, SameStatementWrite record, int maxEnabled) {
        String types = registration.types() == null ? null
                : PostgresArrays.literal(new ArrayList<Object>(registration.types()));
        return db.transaction(session -> takeTurn(session).chain(() -> {
            var query = session.<String>createNativeQuery("with r as (insert into webhook_endpoints (id, url, types,"
                    + " description, secret, status, cursor, created_at, updated_at) select :id, :url,"
                    + " cast(cast(:types as text) as text[]), :description, :secret, 'enabled', (select position from"
                    + " event_cursors where name = 'sequencer'), :at, :at where " + ROOM + " returning *)"
                    + recorded(record) + AS_JSON)
                    .setParameter("id", registration.id()).setParameter("url", registration.url())
                    .setParameter("types", types).setParameter("description", registration.description())
                    .setParameter("secret", registration.secret()).setParameter("at", registration.at())
                    .setParameter("max", maxEnabled);
            if (record != null) {
                record.parameters().forEach(query::setParameter);
            }
            return query.getSingleResultOrNull();
        })).map(row -> row == null ? null : read(row));
    }

    /** The lock registrations and enablings take turns under, so that two never both take the last place. */
    private static Uni<Object> takeTurn(Mutiny.StatelessSession session) {
        return session.createNativeQuery("select cast(pg_advisory_xact_lock(:lock) as text)")
                .setParameter("lock", LIMIT_LOCK).getSingleResult();
    }

    /** Endpoints not deleted, by id, after {@code after} (null: from the first). */
    Uni<List<WebhookEndpoint>> page(UUID after, int limit) {
        UUID from = after == null ? new UUID(0, 0) : after; // PostgreSQL orders uuids by their bytes
        return db.run(ResendSafety.READ, session -> session.<String>createNativeQuery("select cast(to_jsonb(r) as text)"
                + " from webhook_endpoints r where r.status <> 'deleted' and r.id > :after order by r.id limit :limit")
                .setParameter("after", from).setParameter("limit", limit).getResultList())
                .map(rows -> rows.stream().map(this::read).toList());
    }

    /** The endpoint, or null when there is none or it was deleted. */
    Uni<WebhookEndpoint> find(UUID id) {
        return db.run(ResendSafety.READ, session -> session.<String>createNativeQuery("select cast(to_jsonb(r) as text)"
                + " from webhook_endpoints r where r.id = :id and r.status <> 'deleted'").setParameter("id", id)
                .getSingleResultOrNull()).map(row -> row == null ? null : read(row));
    }

    /**
     * Marks the endpoint deleted and cancels the deliveries it was still owed; true when it exists (deleted now or
     * before: a repeated DELETE is answered as the first).
     */
    Uni<Boolean> delete(UUID id, Instant at) {
        return db.run(ResendSafety.GUARDED, session -> session.<Boolean>createNativeQuery("with r as (update"
                + " webhook_endpoints set status = 'deleted', updated_at = :at where id = :id and status <> 'deleted'"
                + " returning id), owed as (update webhook_deliveries set status = 'CANCELLED', updated_at = :at"
                + " where endpoint_id in (select id from r) and status = 'PENDING')"
                + " select exists (select 1 from webhook_endpoints where id = :id)")
                .setParameter("id", id).setParameter("at", at).getSingleResult());
    }

    /**
     * A new secret; the current one keeps signing beside it until {@code overlapUntil}. A rotation within the
     * overlap of the last one drops the oldest: two secrets at most.
     */
    Uni<WebhookEndpoint> rotate(UUID id, String secret, Instant overlapUntil, Instant at, SameStatementWrite record) {
        return db.run(record == null ? ResendSafety.WHEN_NOTHING_DONE : ResendSafety.KEYED, session -> {
            var query = session.<String>createNativeQuery("with r as (update webhook_endpoints set"
                    + " previous_secret = secret, previous_secret_until = :until, secret = :secret, updated_at = :at"
                    + " where id = :id and status <> 'deleted' returning *)" + recorded(record) + AS_JSON)
                    .setParameter("id", id).setParameter("secret", secret).setParameter("until", overlapUntil)
                    .setParameter("at", at);
            if (record != null) {
                record.parameters().forEach(query::setParameter);
            }
            return query.getSingleResultOrNull();
        }).map(row -> row == null ? null : read(row));
    }

    /**
     * Enabled again, its failure clock reset, when there is room; what it is still owed is due at once, and it
     * reads the feed on from its cursor (what was published while it was disabled, as far as retention kept it).
     */
    Uni<Enabled> enable(UUID id, Instant at, int maxEnabled) {
        return db.transaction(session -> takeTurn(session).chain(() -> session.<Object[]>createNativeQuery("with"
                + " r as (update webhook_endpoints set status = 'enabled', failing_since = null, disabled_reason ="
                + " null, updated_at = :at where id = :id and status <> 'deleted' and (status = 'enabled' or " + ROOM
                + ") returning *), owed as (update webhook_deliveries set next_attempt_at = :at where endpoint_id in"
                + " (select id from r) and status = 'PENDING') select cast(to_jsonb(r) as text), true from r union all"
                + " select cast(to_jsonb(e) as text), false from webhook_endpoints e where e.id = :id and e.status <>"
                + " 'deleted' and not exists (select 1 from r)").setParameter("id", id).setParameter("at", at)
                .setParameter("max", maxEnabled).getSingleResultOrNull()))
                .map(row -> row == null ? null : new Enabled(read((String) row[0]), Boolean.TRUE.equals(row[1])));
    }

    /** An endpoint asked to be enabled, and whether it is (false: as many are enabled as allowed). */
    record Enabled(WebhookEndpoint endpoint, boolean enabled) {
    }

    /**
     * The endpoint a creation's or rotation's idempotency record names ({@code {id: null, endpoint: {id}}}): the
     * record keeps its id alone, never a secret; a replay answers the endpoint as it is now.
     */
    UUID recorded(String recordJson) {
        try {
            return UUID.fromString(json.readTree(recordJson).path("endpoint").path("id").asText());
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    private WebhookEndpoint read(String rowJson) {
        try {
            return WebhookEndpoint.fromRow(json.readTree(rowJson));
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The record keeps the endpoint's id under {@code endpoint}, and nothing else of it: no secret is kept for the
     * record's seven days. Its order id is null, as an endpoint is of no order.
     */
    private static String recorded(SameStatementWrite record) {
        return record == null ? "" : ", recorded as (" + record.sql("(select cast(null as uuid) as id,"
                + " jsonb_build_object('id', x.id) as endpoint from r x)") + ")";
    }
}
