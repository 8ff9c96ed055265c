package io.orderflow.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

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
 * Layer rules of issue 12 §2 that today's persistence code breaks, and that the port to Hibernate Reactive
 * (issue 12 §1) is to make true. NOT YET RUN: nothing runs this class by itself (it has no {@code @AnalyzeClasses}
 * and its name does not end in Test). Switch them on when the port lands by adding to {@link LayerRulesTest}:
 *
 * <pre>
 * &#64;ArchTest
 * static final ArchTests persistenceLayerRules = ArchTests.in(PersistenceLayerRules.class);
 * </pre>
 */
public final class PersistenceLayerRules {

    private PersistenceLayerRules() {
    }

    /** Today OrderRepository imports idempotency.DedupRecord to splice its SQL into the CAS statement. */
    @ArchTest
    static final ArchRule theOrderRepositoryShouldNotUseTheIdempotencyPackage = noClasses()
            .that().resideInAPackage("io.orderflow.order.persistence..")
            .should().dependOnClassesThat().resideInAPackage("io.orderflow.idempotency..")
            .because("the dedup record reaches the CAS statement as an opaque same-statement write");

    /** Today DedupRecord (for PostgreSQL) and RedisShutter (for Redis) each turn stored bytes back into a Reply. */
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
