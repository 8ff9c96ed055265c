package io.orderflow.order.persistence;

import io.vertx.core.json.JsonArray;
import java.sql.CallableStatement;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import org.hibernate.type.descriptor.ValueBinder;
import org.hibernate.type.descriptor.ValueExtractor;
import org.hibernate.type.descriptor.WrapperOptions;
import org.hibernate.type.descriptor.java.JavaType;
import org.hibernate.type.descriptor.jdbc.BasicBinder;
import org.hibernate.type.descriptor.jdbc.BasicExtractor;
import org.hibernate.type.descriptor.jdbc.JsonJdbcType;

/**
 * A jsonb column holding a JSON array (an order's {@code items}). Hibernate Reactive's own JSON type only takes JSON
 * objects (hibernate-reactive#4156: the reactive driver hands a {@code JsonArray}, which it casts to a
 * {@code JsonObject}); this one reads and binds arrays through their text, with Hibernate's JSON mapping.
 */
public class JsonArrayJdbcType extends JsonJdbcType {

    public JsonArrayJdbcType() {
        super(null);
    }

    @Override
    public <X> ValueExtractor<X> getExtractor(JavaType<X> javaType) {
        return new BasicExtractor<>(javaType, this) {
            @Override
            protected X doExtract(ResultSet rs, int index, WrapperOptions options) throws SQLException {
                return parse(rs.getObject(index), options);
            }

            @Override
            protected X doExtract(CallableStatement statement, int index, WrapperOptions options) throws SQLException {
                return parse(statement.getObject(index), options);
            }

            @Override
            protected X doExtract(CallableStatement statement, String name, WrapperOptions options)
                    throws SQLException {
                return parse(statement.getObject(name), options);
            }

            private X parse(Object value, WrapperOptions options) throws SQLException {
                return value == null ? null : fromString(value.toString(), getJavaType(), options);
            }
        };
    }

    @Override
    public <X> ValueBinder<X> getBinder(JavaType<X> javaType) {
        return new BasicBinder<>(javaType, this) {
            @Override
            protected void doBind(PreparedStatement st, X value, int index, WrapperOptions options)
                    throws SQLException {
                st.setObject(index, new JsonArray(JsonArrayJdbcType.this.toString(value, getJavaType(), options)));
            }

            @Override
            protected void doBind(CallableStatement st, X value, String name, WrapperOptions options)
                    throws SQLException {
                st.setObject(name, new JsonArray(JsonArrayJdbcType.this.toString(value, getJavaType(), options)));
            }
        };
    }
}
