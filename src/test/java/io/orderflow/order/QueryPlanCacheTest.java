package io.orderflow.order;

import static io.orderflow.support.OrderMother.*;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.quarkus.arc.ClientProxy;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.lang.reflect.Field;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.query.spi.QueryInterpretationCache;
import org.hibernate.reactive.mutiny.Mutiny;
import org.hibernate.reactive.mutiny.impl.MutinySessionFactoryImpl;
import org.junit.jupiter.api.Test;

/**
 * Requests do not grow Hibernate's query plan cache. With Hibernate Reactive 3.2 a native query's plan is never found
 * there again (see application.properties), so a cache that is on gains one useless plan per statement executed.
 */
@QuarkusTest
class QueryPlanCacheTest {

    @Inject
    Mutiny.SessionFactory sessions;

    @Test
    void shouldNotAddAQueryPlanForEveryStatementARequestRuns() throws ReflectiveOperationException {
        QueryInterpretationCache cache = plans();
        String warm = paidOrder();
        postKeyed(warm, "ship", shipBody(), newKey()).then().statusCode(200);
        int before = cache.getNumberOfCachedQueryPlans();
        for (int i = 0; i < 5; i++) {
            String id = paidOrder();
            postKeyed(id, "ship", shipBody(), newKey()).then().statusCode(200);
            postKeyed(id, "ship", shipBody(), newKey()).then().statusCode(200);
        }
        assertEquals(before, cache.getNumberOfCachedQueryPlans(),
                "5 orders created, paid, shipped and shipped again added plans to the cache");
    }

    private QueryInterpretationCache plans() throws ReflectiveOperationException {
        Field delegate = MutinySessionFactoryImpl.class.getDeclaredField("delegate");
        delegate.setAccessible(true);
        SessionFactoryImplementor factory = (SessionFactoryImplementor) delegate.get(ClientProxy.unwrap(sessions));
        return factory.getQueryEngine().getInterpretationCache();
    }
}
