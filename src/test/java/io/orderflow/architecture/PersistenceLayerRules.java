package io.orderflow.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaConstructorCall;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import com.tngtech.archunit.lang.syntax.ArchRuleDefinition;
import io.orderflow.common.Reply;
import java.util.Set;
import java.util.TreeSet;

/**
 * The persistence layer's rules (issue 12 §1–§2), run by {@link LayerRulesTest}: one persistence style (Hibernate
 * Reactive; the Vert.x SQL client, with its hand-numbered {@code $n} parameters and {@code Tuple}s, is not used
 * directly), the dedup record reaching the order's statement as an opaque same-statement write, one reply codec.
 */
public final class PersistenceLayerRules {

    private PersistenceLayerRules() {
    }

    /** Only the driver's exception types may be named (to map a lost connection or a constraint to a problem). */
    @ArchTest
    static final ArchRule persistenceShouldGoThroughHibernateReactiveOnly = noClasses()
            .that().doNotHaveFullyQualifiedName("io.orderflow.common.PostgresPoolCreator") // configures the pool
            .should().dependOnClassesThat(JavaClass.Predicates.resideInAnyPackage("io.vertx.sqlclient..",
                    "io.vertx.pgclient..", "io.vertx.mutiny.sqlclient..", "io.vertx.mutiny.pgclient..")
                    .and(DescribedPredicate.not(JavaClass.Predicates.assignableTo(Throwable.class))))
            .because("all persistence goes through Mutiny.SessionFactory (Db.run): no second pool, no $n SQL");

    /** The order's statement takes the dedup record as a SameStatementWrite, without knowing the idempotency code. */
    @ArchTest
    static final ArchRule theOrderRepositoryShouldNotUseTheIdempotencyPackage = noClasses()
            .that().resideInAPackage("io.orderflow.order.persistence..")
            .should().dependOnClassesThat().resideInAPackage("io.orderflow.idempotency..")
            .because("the dedup record reaches the CAS statement as an opaque same-statement write");

    /** The order's persistence takes what it writes ({@code OrderMove}), not the service's command or result. */
    @ArchTest
    static final ArchRule theOrderRepositoryShouldNotUseTheOrderServiceLayer = noClasses()
            .that().resideInAPackage("io.orderflow.order.persistence..")
            .should().dependOnClassesThat().resideInAPackage("io.orderflow.order")
            .because("persistence sits beneath the service: it speaks the domain's words and its own values");

    /** DedupRecord (PostgreSQL) and RedisIdempotencyCache (Redis) keep the same stored form: ReplyCodec reads both. */
    @ArchTest
    static final ArchRule storedRepliesShouldBeDecodedByOneCodec = ArchRuleDefinition.classes()
            .should(haveOneReplyDecoderIn("io.orderflow.idempotency"))
            .because("a stored answer is replayed byte for byte, whichever layer kept it: one format, one codec");

    /**
     * At most one class of {@code pkg} constructs a {@link Reply}: within the idempotency package, building a Reply
     * is decoding a stored one.
     */
    static ArchCondition<JavaClass> haveOneReplyDecoderIn(String pkg) {
        return new ArchCondition<>("have at most one class in " + pkg + " that decodes stored replies") {
            private final Set<String> decoders = new TreeSet<>();

            @Override
            public void check(JavaClass item, ConditionEvents events) {
                if (!item.getPackageName().startsWith(pkg)) {
                    return;
                }
                for (JavaConstructorCall call : item.getConstructorCallsFromSelf()) {
                    if (call.getTargetOwner().isEquivalentTo(Reply.class)) {
                        decoders.add(item.getName().replaceAll("\\$.*", ""));
                    }
                }
            }

            @Override
            public void finish(ConditionEvents events) {
                events.add(new SimpleConditionEvent(decoders, decoders.size() <= 1,
                        "classes that build Replies from stored bytes: " + decoders));
            }
        };
    }
}
