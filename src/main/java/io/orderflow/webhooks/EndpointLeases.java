package io.orderflow.webhooks;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.orderflow.common.Db;
import io.orderflow.common.NativeValues;
import io.orderflow.common.PostgresArrays;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Which replica delivers which endpoint, and each endpoint's cursor over the feed. A replica holds an endpoint by a
 * lease on its row (renewed while it runs, taken over by another once it runs out), so one replica at a time
 * delivers an endpoint's events, in order, and nothing is locked while it sends. Each takes a fair share: the
 * enabled endpoints divided among the replicas seen lately ({@code webhook_dispatchers}).
 */
@ApplicationScoped
public class EndpointLeases {

    /** An endpoint this replica holds: as stored, where its cursor stands, and since when it fails (or null). */
    record Held(WebhookEndpoint endpoint, long cursor, Instant failingSince) {
    }

    /**
     * Beats, keeps up to a fair share (plus one, against flapping) of the endpoints it holds, releases the rest,
     * takes free ones up to the share, renews the leases that are due, and returns what it holds.
     */
    private static final String ROUND = "with beat as (insert into webhook_dispatchers (replica, seen_at) values (:me,"
            + " :now) on conflict (replica) do update set seen_at = excluded.seen_at),"
            + " gone as (delete from webhook_dispatchers where seen_at <= :stale and replica <> :me),"
            + " live as (select count(*) + case when bool_or(replica = :me) then 0 else 1 end as n from"
            + " webhook_dispatchers where seen_at > :stale),"
            + " share as (select cast(ceil((select count(*) from webhook_endpoints where status = 'enabled')"
            + " / cast(greatest((select coalesce(n, 1) from live), 1) as numeric)) as int) as n),"
            + " mine as (select id, row_number() over (order by id) as rank from webhook_endpoints where status ="
            + " 'enabled' and leased_by = :me and lease_until > :now),"
            + " kept as (select id from mine where rank <= (select n from share) + 1),"
            + " released as (update webhook_endpoints set leased_by = null, lease_until = null where id in (select id"
            + " from mine where rank > (select n from share) + 1)),"
            + " free as (select id from webhook_endpoints where status = 'enabled' and (lease_until is null or"
            + " lease_until <= :now) order by id limit greatest(0, (select n from share) - (select count(*) from kept))"
            + " for update skip locked),"
            + " renewed as (update webhook_endpoints set leased_by = :me, lease_until = :until where id in (select id"
            + " from free) or (id in (select id from kept) and lease_until < :renew_before))"
            + " select cast(to_jsonb(e) as text), e.cursor, e.failing_since from webhook_endpoints e"
            + " where e.id in (select id from kept union all select id from free)";

    private final Db db;
    private final ObjectMapper json;

    public EndpointLeases(Db db, ObjectMapper json) {
        this.db = db;
        this.json = json;
    }

    /** One lease round of replica {@code me}: the endpoints it holds now. */
    Uni<List<Held>> round(String me, Instant now, Duration lease) {
        return db.background(session -> session.<Object[]>createNativeQuery(ROUND).setParameter("me", me)
                .setParameter("now", now).setParameter("stale", now.minus(lease))
                .setParameter("until", now.plus(lease)).setParameter("renew_before", now.plus(lease.dividedBy(2)))
                .getResultList()).map(rows -> rows.stream().map(row -> new Held(endpoint((String) row[0]),
                        NativeValues.number(row[1]), NativeValues.instant(row[2]))).toList());
    }

    /** Moves the cursors of endpoints {@code me} still holds forward (never back). */
    Uni<Integer> moveCursors(String me, Map<UUID, Long> cursors) {
        if (cursors.isEmpty()) {
            return Uni.createFrom().item(0);
        }
        List<Object> ids = new ArrayList<>(cursors.keySet());
        List<Object> positions = ids.stream().map(id -> (Object) cursors.get((UUID) id)).toList();
        return db.background(session -> session.createNativeQuery("update webhook_endpoints e set cursor = v.c from"
                + " unnest(cast(cast(:ids as text) as uuid[]), cast(cast(:cursors as text) as bigint[])) v(id, c)"
                + " where e.id = v.id and e.leased_by = :me and e.cursor < v.c")
                .setParameter("ids", PostgresArrays.literal(ids))
                .setParameter("cursors", PostgresArrays.literal(positions)).setParameter("me", me).executeUpdate());
    }

    /** At shutdown: the endpoints {@code me} holds are free at once, and it no longer counts as a replica. */
    Uni<Integer> releaseAll(String me) {
        return db.background(session -> session.createNativeQuery("with gone as (delete from webhook_dispatchers"
                + " where replica = :me) update webhook_endpoints set leased_by = null, lease_until = null"
                + " where leased_by = :me").setParameter("me", me).executeUpdate());
    }

    private WebhookEndpoint endpoint(String row) {
        try {
            return WebhookEndpoint.fromRow(json.readTree(row));
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }
}
