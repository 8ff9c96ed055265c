package io.orderflow.architecture;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.junit.ArchTests;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.CompositeArchRule;
import io.orderflow.order.OrderService;
import io.orderflow.order.TransitionParticipant;

/**
 * The layer rules of STYLE.md and the package docs, checked on the compiled classes: packages by feature, a plain
 * Java order domain, {@code common} beneath every feature; and the persistence layer's ({@link PersistenceLayerRules}).
 */
@AnalyzeClasses(packages = "io.orderflow", importOptions = ImportOption.DoNotIncludeTests.class)
class LayerRulesTest {

    @ArchTest
    static final ArchTests persistenceLayerRules = ArchTests.in(PersistenceLayerRules.class);

    @ArchTest
    static final ArchRule theOrderDomainShouldUseNoFrameworkNoSerializerAndNoDatabaseApi = noClasses()
            .that().resideInAPackage("io.orderflow.order.domain..")
            .should().dependOnClassesThat().resideInAnyPackage(
                    "io.quarkus..", "org.hibernate..", "io.vertx..", "io.smallrye..", "org.jboss..",
                    "jakarta.ws.rs..", "jakarta.persistence..", "jakarta.enterprise..", "jakarta.inject..",
                    "com.fasterxml.jackson..", "java.sql..", "io.orderflow.common..")
            .because("the state machine is plain Java: the domain's package-info says so, and tests run it bare");

    @ArchTest
    static final ArchRule theOrderFeatureShouldNeverUseThePaymentFeature = noClasses()
            .that().resideInAPackage("io.orderflow.order..")
            .should().dependOnClassesThat().resideInAPackage("io.orderflow.payment..")
            .because("payments call into orders through the one transition path, never the other way round");

    @ArchTest
    static final ArchRule theEventsFeatureShouldNeverUseThePaymentFeature = noClasses()
            .that().resideInAPackage("io.orderflow.events..")
            .should().dependOnClassesThat().resideInAPackage("io.orderflow.payment..")
            .because("payment writes a refund's event through events' RefundEvents, which knows refunds as rows");

    @ArchTest
    static final ArchRule theEventsFeatureShouldNeverUseItsWebhooks = noClasses()
            .that().resideInAPackage("io.orderflow.events..")
            .should().dependOnClassesThat().resideInAPackage("io.orderflow.webhooks..")
            .because("webhooks build on the events' relay through PublishedEventsParticipant; events know no subscriber");

    @ArchTest
    static final ArchRule webhooksShouldKnowNeitherOrdersNorPayments = noClasses()
            .that().resideInAPackage("io.orderflow.webhooks..")
            .should().dependOnClassesThat().resideInAnyPackage("io.orderflow.order..", "io.orderflow.payment..")
            .because("a webhook carries an event as the outbox holds it; what it says is the events feature's");

    @ArchTest
    static final ArchRule aPaymentAdapterShouldUseNothingOfPaymentButTheSpi = CompositeArchRule
            .of(adapterUsingOnlyTheSpi("stripe")).and(adapterUsingOnlyTheSpi("wechatpay"))
            .and(adapterUsingOnlyTheSpi("mockpay"))
            .because("an adapter only translates its provider through the SPI: it never decides, so it needs nothing"
                    + " of the core, nor of another adapter");

    @ArchTest
    static final ArchRule thePaymentSpiShouldUseNoOtherPaymentPackage = noClasses()
            .that().resideInAPackage("io.orderflow.payment.spi..")
            .should().dependOnClassesThat(resideInAPackage("io.orderflow.payment..")
                    .and(DescribedPredicate.not(resideInAPackage("io.orderflow.payment.spi.."))))
            .because("the SPI is what an adapter sees of payments: it stands alone, beneath the core that uses it");

    @ArchTest
    static final ArchRule theFeaturesShouldFormNoCycle = slices().matching("io.orderflow.(*)..").should()
            .beFreeOfCycles().because("each feature builds on those beneath it, never on one that builds on it");

    @ArchTest
    static final ArchRule paymentsPartsShouldFormNoCycle = slices().matching("io.orderflow.payment.(*)..").should()
            .beFreeOfCycles().because("a payment's parts stand in layers: the SPI and the stored commands beneath"
                    + " attempts and refunds, callbacks above them, the reconciler and the workers that send commands"
                    + " on top; a newcomer reads one without the ones above it");

    @ArchTest
    static final ArchRule commonShouldUseNoFeature = noClasses()
            .that().resideInAPackage("io.orderflow.common..")
            .should().dependOnClassesThat().resideInAnyPackage(
                    "io.orderflow.order..", "io.orderflow.payment..", "io.orderflow.idempotency..",
                    "io.orderflow.events..", "io.orderflow.webhooks..")
            .because("every feature builds on common; a feature's errors are mapped by its own ProblemTranslator");

    @ArchTest
    static final ArchRule aTransitionsParticipantShouldNeverReachTheServiceThatCallsIt = noClasses()
            .that().implement(TransitionParticipant.class)
            .should().transitivelyDependOnClassesThat().belongToAnyOf(OrderService.class)
            .because("OrderService calls every participant: one that reached back to it would be a bean cycle;"
                    + " participants read orders through OrderLookup");

    /** The adapter in {@code io.orderflow.payment.<adapter>} uses of payment only the SPI and its own package. */
    private static ArchRule adapterUsingOnlyTheSpi(String adapter) {
        String own = "io.orderflow.payment." + adapter + "..";
        return noClasses().that().resideInAPackage(own)
                .should().dependOnClassesThat(resideInAPackage("io.orderflow.payment..")
                        .and(DescribedPredicate.not(resideInAnyPackage("io.orderflow.payment.spi..", own))));
    }
}
