package io.orderflow.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.orderflow.idempotency.IdempotencyKey;
import io.orderflow.idempotency.SubmitToken;
import io.orderflow.order.persistence.OrderEntity;
import io.orderflow.order.persistence.TransitionEntity;
import io.orderflow.payment.anomalies.PaymentAnomaly;
import io.orderflow.payment.attempts.PaymentAttemptEntity;
import io.orderflow.payment.attempts.PaymentCaptureEntity;
import io.orderflow.payment.commands.ProviderCommandEntity;
import io.orderflow.payment.commands.ProviderRefundEntity;
import io.orderflow.payment.refunds.RefundEntity;
import io.orderflow.support.Sql;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.persistence.Column;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import jakarta.persistence.metamodel.EntityType;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.Collectors;
import org.hibernate.annotations.JdbcType;
import org.hibernate.reactive.mutiny.Mutiny;
import org.hibernate.annotations.JdbcTypeCode;
import org.hibernate.type.SqlTypes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every entity says what the Flyway schema says, column by column: Hibernate's schema validation checks the types
 * only, so a mapping that claims NOT NULL (or a length) the table does not have would pass it and mislead every
 * reader of the entity.
 */
@QuarkusTest
class EntityMappingsTest {

    private static final Set<Class<?>> ENTITIES = Set.of(OrderEntity.class, TransitionEntity.class,
            IdempotencyKey.class, SubmitToken.class, PaymentAttemptEntity.class, PaymentCaptureEntity.class,
            ProviderCommandEntity.class, ProviderRefundEntity.class, PaymentAnomaly.class, RefundEntity.class);

    private final Mutiny.SessionFactory sessions;

    EntityMappingsTest(Mutiny.SessionFactory sessions) {
        this.sessions = sessions;
    }

    @Test
    void shouldCheckEveryEntityHibernateMaps() {
        Set<Class<?>> mapped = sessions.getMetamodel().getEntities().stream().map(EntityType::getJavaType)
                .collect(Collectors.toSet());
        assertEquals(mapped, ENTITIES);
    }

    private static final Map<Class<?>, String> TYPES = Map.of(UUID.class, "uuid", String.class, "text",
            long.class, "bigint", Long.class, "bigint", int.class, "integer", Instant.class,
            "timestamp with time zone");

    /**
     * Columns an entity leaves unmapped on purpose: the history row's event columns, which the event feed reads in its
     * own statements (io.orderflow.events.Feed) and no history read needs.
     */
    private static final Map<Class<?>, Set<String>> UNMAPPED = Map.of(TransitionEntity.class,
            Set.of("xid", "snapshot", "trace"));

    @ParameterizedTest
    @ValueSource(classes = { OrderEntity.class, TransitionEntity.class, IdempotencyKey.class, SubmitToken.class,
            PaymentAttemptEntity.class, PaymentCaptureEntity.class, ProviderCommandEntity.class,
            ProviderRefundEntity.class, PaymentAnomaly.class, RefundEntity.class })
    void shouldMapEveryColumnOfItsTableWithTheTablesTypeNullabilityAndLength(Class<?> entity) throws SQLException {
        Map<String, String> schema = schema(entity.getAnnotation(Table.class).name());
        schema.keySet().removeAll(UNMAPPED.getOrDefault(entity, Set.of()));
        assertEquals(schema, mapping(entity));
    }

    /** {@code column -> "type nullable|not null [length]"} as the entity declares it. */
    private static Map<String, String> mapping(Class<?> entity) {
        Map<String, String> columns = new TreeMap<>();
        for (Field field : entity.getDeclaredFields()) {
            if (Modifier.isStatic(field.getModifiers()) || Modifier.isTransient(field.getModifiers())
                    || field.getName().startsWith("$$_hibernate")) {
                continue; // not a column (Hibernate's bytecode enhancement adds fields of its own)
            }
            Column column = field.getAnnotation(Column.class);
            String name = column != null && !column.name().isEmpty() ? column.name() : field.getName();
            JdbcTypeCode code = field.getAnnotation(JdbcTypeCode.class);
            String type = code != null && code.value() == SqlTypes.CHAR ? "character(" + column.length() + ")"
                    : code != null && code.value() == SqlTypes.JSON || field.isAnnotationPresent(JdbcType.class)
                            ? "jsonb" : TYPES.get(field.getType());
            boolean nullable = !field.isAnnotationPresent(Id.class) && !field.getType().isPrimitive()
                    && (column == null || column.nullable());
            columns.put(name, type + (nullable ? " null" : " not null"));
        }
        return columns;
    }

    /** The same, as PostgreSQL has the table after the migrations. */
    private static Map<String, String> schema(String table) throws SQLException {
        Map<String, String> columns = new TreeMap<>();
        try (Connection c = Sql.connect(); PreparedStatement ps = c.prepareStatement("select column_name, data_type,"
                + " character_maximum_length, is_nullable from information_schema.columns where table_schema ="
                + " current_schema() and table_name = ?")) {
            ps.setString(1, table);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String type = rs.getString(2).equals("character") ? "character(" + rs.getInt(3) + ")"
                            : rs.getString(2);
                    columns.put(rs.getString(1), type + (rs.getString(4).equals("YES") ? " null" : " not null"));
                }
            }
        }
        return columns;
    }
}
