package io.orderflow.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Vetoed;
import jakarta.inject.Singleton;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * No bean of the service needs, through its injection points, a bean that needs it back ({@link BeanGraph}). ArC
 * builds such a cycle only through the client proxies of normal-scoped beans, fails at startup as soon as one of its
 * beans is {@code @Singleton} or {@code @Dependent}, and a cycle hidden behind an {@code Instance<T>} lookup is still
 * two classes that cannot be understood, or tested, one without the other. Where two beans both need one thing of a
 * third, that thing becomes a bean of its own (as {@code OrderLookup} is for OrderService and the payment attempts).
 */
class BeanCycleTest {

    @Test
    void shouldFindNoCycleAmongTheServicesBeans() {
        JavaClasses main = new ClassFileImporter().withImportOption(new ImportOption.DoNotIncludeTests())
                .importPackages("io.orderflow");
        BeanGraph graph = BeanGraph.of(main);

        assertTrue(graph.needs("io.orderflow.order.OrderService")
                .contains("io.orderflow.payment.attempts.PaymentParticipant"),
                "the graph resolves OrderService's Instance<TransitionParticipant> to the payment participant");
        List<String> cycles = graph.cycles();
        assertTrue(cycles.isEmpty(), () -> "beans that need each other through their injection points:\n  "
                + String.join("\n  ", cycles));
    }

    @Test
    void shouldReportACycleThroughALookupAndAnInterfaceWithItsPath() {
        JavaClasses fixture = new ClassFileImporter().importClasses(ReadingService.class, Participant.class,
                Starts.class, Reader.class, NotABean.class);

        // the walk may enter the cycle at any of its beans: compare the path as a ring
        List<String> cycles = BeanGraph.of(fixture).cycles();
        assertEquals(1, cycles.size(), cycles::toString);
        String ring = cycles.get(0).substring(cycles.get(0).indexOf(' ')) + cycles.get(0).substring(cycles.get(0).indexOf(' '));
        assertTrue(ring.contains(" -[Instance<Participant>]-> architecture.BeanCycleTest$Participant ->"
                + " architecture.BeanCycleTest$Starts -[Reader]-> architecture.BeanCycleTest$ReadingService"
                + " -[Instance<Participant>]->"), cycles::toString);
    }

    @Test
    void shouldFindNoCycleOnceWhatBothNeedIsABeanOfItsOwn() {
        JavaClasses fixture = new ClassFileImporter().importClasses(Service.class, Participant.class, Starts.class,
                Reader.class, OwnReader.class, NotABean.class);

        assertEquals(List.of(), BeanGraph.of(fixture).cycles());
    }

    /** What the participant's part needs of the service. */
    interface Reader {
    }

    /** Calls its participants, and is also what they read through: the cycle. */
    @Vetoed // a fixture for the graph only: never a bean of the test application
    @ApplicationScoped
    static class ReadingService implements Reader {
        ReadingService(Instance<Participant> participants) {
        }
    }

    @Vetoed // a fixture for the graph only: never a bean of the test application
    @ApplicationScoped
    static class Service {
        Service(Instance<Participant> participants) {
        }
    }

    @Vetoed // a fixture for the graph only: never a bean of the test application
    @ApplicationScoped
    static class OwnReader implements Reader {
    }

    @Vetoed // a fixture for the graph only: never a bean of the test application
    @Singleton
    static class Participant {
        Participant(Starts starts) {
        }
    }

    @Vetoed // a fixture for the graph only: never a bean of the test application
    @ApplicationScoped
    static class Starts {
        Starts(Reader orders) {
        }
    }

    /** Not a bean: satisfies no injection point. */
    static class NotABean implements Reader {
        NotABean(Service service) {
        }
    }
}
