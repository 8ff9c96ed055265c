package io.orderflow.payment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.orderflow.payment.workers.RefundWorker;
import io.orderflow.payment.spi.PaymentProvider;
import io.orderflow.payment.spi.ProviderCalls;
import io.orderflow.payment.spi.ProviderOutcome;
import io.orderflow.payment.spi.ProviderUnavailable;
import io.orderflow.payment.spi.RefundRequest;
import io.orderflow.payment.spi.RefundState;
import io.smallrye.mutiny.Uni;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.eclipse.microprofile.faulttolerance.exceptions.CircuitBreakerOpenException;
import org.junit.jupiter.api.Test;

/**
 * Past the provider's key window the worker looks a refund up before sending it: only the provider's "there is
 * none" may lead to a new refund. The look-ups' answers here are what {@link ProviderCalls} makes of a refused
 * connection and of an open circuit (a 429 through Stripe's real adapter is in {@link RefundCommandsTest}).
 */
class RefundLookUpTest {

    private final List<String> calls = new ArrayList<>();

    private static final RefundRequest REQUEST = new RefundRequest(UUID.randomUUID(), "pi_1", "ch_1", 2500, "EUR",
            null);

    /** A provider whose look-up answers {@code lookUp} and whose create makes a refund; every call is noted. */
    private PaymentProvider providerAnswering(ProviderOutcome<RefundState> lookUp) {
        return (PaymentProvider) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] { PaymentProvider.class }, (proxy, method, args) -> {
                    calls.add(method.getName());
                    return switch (method.getName()) {
                        case "queryRefund" -> Uni.createFrom().item(lookUp);
                        case "createRefund" -> Uni.createFrom().item(ProviderOutcome.processed(new RefundState("re_1",
                                "ch_1", 2500L, "EUR", null)));
                        default -> throw new UnsupportedOperationException(method.getName());
                    };
                });
    }

    private ProviderOutcome<RefundState> lookUpThenCreate(ProviderOutcome<RefundState> lookUp) {
        return RefundWorker.lookUpThenCreate(providerAnswering(lookUp), REQUEST).await().indefinitely();
    }

    @Test
    void shouldSendNothingWhenTheLookUpNeverConnected() {
        // what StripeApi and WechatPayApi make of a ConnectException: no connection, so certainly no effect
        ProviderOutcome<RefundState> refused = ProviderCalls.outcomeOf(new ProviderUnavailable("connection",
                "Stripe could not be reached or did not answer", false));

        ProviderOutcome<RefundState> outcome = lookUpThenCreate(refused);

        assertEquals(List.of("queryRefund"), calls, "no answer is not \"no refund\": nothing is sent");
        assertFalse(outcome.isNotFound());
        assertEquals(ProviderOutcome.Status.CANCELED, outcome.status(), "tried again later");
    }

    @Test
    void shouldSendNothingWhenTheCircuitIsOpen() {
        lookUpThenCreate(ProviderCalls.outcomeOf(new CircuitBreakerOpenException("stripe")));

        assertEquals(List.of("queryRefund"), calls);
    }

    @Test
    void shouldSendTheRefundOnceTheProviderSaysThereIsNone() {
        ProviderOutcome<RefundState> outcome = lookUpThenCreate(ProviderOutcome.notFound("no refund for the command"));

        assertEquals(List.of("queryRefund", "createRefund"), calls);
        assertTrue(outcome.is(ProviderOutcome.Status.PROCESSED));
    }
}
