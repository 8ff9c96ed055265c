package io.orderflow.order.persistence;

import io.orderflow.order.domain.Transition;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.IdClass;
import jakarta.persistence.NamedQuery;
import jakarta.persistence.Table;
import java.io.Serializable;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import org.hibernate.annotations.JdbcTypeCode;
import org.hibernate.type.SqlTypes;

/** A row of {@code order_transitions}: one applied move, appended in the statement that made it. */
@Entity
@Table(name = "order_transitions")
@NamedQuery(name = TransitionEntity.HISTORY, query = "from TransitionEntity where orderId = :id order by seq")
@IdClass(TransitionEntity.Key.class)
public class TransitionEntity {

    /** Named, so that Hibernate parses it at boot and never on the event loop. */
    static final String HISTORY = "TransitionEntity.history";

    @Id
    @Column(name = "order_id")
    public UUID orderId;

    @Id
    public int seq;

    @Column(nullable = false, columnDefinition = "text")
    public String event;

    @Column(name = "from_status", nullable = false, columnDefinition = "text")
    public String fromStatus;

    @Column(name = "to_status", nullable = false, columnDefinition = "text")
    public String toStatus;

    @Column(nullable = false)
    public Instant at;

    @Column(nullable = false, columnDefinition = "text")
    public String source;

    /** Who made the move (see {@link Transition}); null for API moves made before V28. */
    @Column(columnDefinition = "text")
    public String actor;

    @Column(name = "request_key", columnDefinition = "text")
    public String requestKey;

    /** What the event was applied with (EventDetails' fields), null for moves recorded before it was kept. */
    @JdbcTypeCode(SqlTypes.JSON)
    public Map<String, Object> details;

    public record Key(UUID orderId, int seq) implements Serializable {
    }
}
