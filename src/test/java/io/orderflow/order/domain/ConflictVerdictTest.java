package io.orderflow.order.domain;

import static io.orderflow.order.domain.OrderEvent.*;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The duplicate / retry / illegal decision, a pure function of the table and the history. */
class ConflictVerdictTest {

    private static ConflictVerdict judge(OrderEvent event, OrderEvent... past) {
        return judge(event, OrderFixtures.detailsFor(event), null, past);
    }

    private static ConflictVerdict judge(OrderEvent event, EventDetails details, Long ifMatch, OrderEvent... past) {
        List<Transition> history = OrderFixtures.history(past);
        Order current = OrderFixtures.orderAfter(past);
        return ConflictVerdict.judge(current, event, details, ifMatch, history);
    }

    @Test
    void shouldCallShipOnAShippedOrderADuplicate() {
        assertEquals(ConflictVerdict.DUPLICATE, judge(SHIP, PAY, PAYMENT_SUCCEEDED, SHIP));
    }

    @Test
    void shouldCallShipOnADeliveredOrderADuplicateAfterTheOrderMovedOn() {
        assertEquals(ConflictVerdict.DUPLICATE, judge(SHIP, PAY, PAYMENT_SUCCEEDED, SHIP, DELIVER));
    }

    @Test
    void shouldCallPayOnAPaidOrderADuplicate() {
        assertEquals(ConflictVerdict.DUPLICATE, judge(PAY, PAY, PAYMENT_SUCCEEDED));
    }

    @Test
    void shouldCallCancelOnARefundedOrderADuplicate() {
        assertEquals(ConflictVerdict.DUPLICATE, judge(CANCEL, PAY, PAYMENT_SUCCEEDED, CANCEL, REFUND_SUCCEEDED));
    }

    @Test
    void shouldRefuseALatePayAfterTheOrderWentAroundTheLoopAndWasCancelled() {
        assertEquals(ConflictVerdict.ILLEGAL, judge(PAY, PAY, PAYMENT_FAILED, CANCEL));
    }

    @Test
    void shouldRefuseShipOnACancelledOrderThatWasNeverShipped() {
        assertEquals(ConflictVerdict.ILLEGAL, judge(SHIP, PAY, PAYMENT_SUCCEEDED, CANCEL));
    }

    @Test
    void shouldRefuseCancelOnAShippedOrder() {
        assertEquals(ConflictVerdict.ILLEGAL, judge(CANCEL, PAY, PAYMENT_SUCCEEDED, SHIP));
    }

    @Test
    void shouldRefuseAnEventTheOrderNeverStoodReadyFor() {
        assertEquals(ConflictVerdict.ILLEGAL, judge(DELIVER));
        assertEquals(ConflictVerdict.ILLEGAL, judge(SHIP, PAY));
        // a refund is about the capture that paid the order; an order that never captured has none
        assertEquals(ConflictVerdict.NOT_CONCERNED, judge(REFUND_SUCCEEDED, PAY));
    }

    @Test
    void shouldRetryWhenTheOrderMovedToAnotherStateThatAlsoTakesTheEvent() {
        // PAY raced with PAYMENT_FAILED: the order is back in CREATED, where CANCEL applies again
        assertEquals(ConflictVerdict.RETRY, judge(CANCEL, PAY, PAYMENT_FAILED));
        assertEquals(ConflictVerdict.RETRY, judge(PAYMENT_SUCCEEDED, PAY));
    }

    @Test
    void shouldCallALateSuccessAfterPayingTwiceADuplicateOnlyForTheLastLeavingMove() {
        // CANCELLED after PAY/PAYMENT_FAILED/CANCEL: PAYMENT_SUCCEEDED applies (late capture → refund owed)
        assertEquals(ConflictVerdict.RETRY, judge(PAYMENT_SUCCEEDED, PAY, PAYMENT_FAILED, CANCEL));
        // and once applied, its repeat is a duplicate
        assertEquals(ConflictVerdict.DUPLICATE, judge(PAYMENT_SUCCEEDED, PAY, PAYMENT_FAILED, CANCEL,
                PAYMENT_SUCCEEDED));
    }

    @Test
    void shouldCallShipWithAnotherTrackingNumberOnAShippedOrderAConflict() {
        assertEquals(ConflictVerdict.CONFLICT, judge(SHIP, new EventDetails.Ship("DHL", "JD2"), null,
                PAY, PAYMENT_SUCCEEDED, SHIP));
        assertEquals(ConflictVerdict.CONFLICT, judge(SHIP, new EventDetails.Ship("UPS", "JD1"), null,
                PAY, PAYMENT_SUCCEEDED, SHIP, DELIVER));
    }

    @Test
    void shouldCallCancelWithoutAReasonADuplicateAndWithAnotherReasonAConflict() {
        assertEquals(ConflictVerdict.DUPLICATE, judge(CANCEL, new EventDetails.Cancel(null), null, CANCEL));
        assertEquals(ConflictVerdict.DUPLICATE, judge(CANCEL, new EventDetails.Cancel("changed my mind"), null,
                CANCEL));
        assertEquals(ConflictVerdict.CONFLICT, judge(CANCEL, new EventDetails.Cancel("too slow"), null, CANCEL));
    }

    @Test
    void shouldPreferTheDuplicateToTheVersionMismatch() {
        assertEquals(ConflictVerdict.DUPLICATE, judge(SHIP, OrderFixtures.detailsFor(SHIP), 0L,
                PAY, PAYMENT_SUCCEEDED, SHIP));
    }

    @Test
    void shouldRefuseAnApplicableEventAtAnotherVersionAsAVersionMismatch() {
        assertEquals(ConflictVerdict.VERSION_MISMATCH, judge(SHIP, OrderFixtures.detailsFor(SHIP), 1L,
                PAY, PAYMENT_SUCCEEDED));
        assertEquals(ConflictVerdict.VERSION_MISMATCH, judge(DELIVER, new EventDetails.None(), 7L, PAY));
    }

    @Test
    void shouldCallAProviderReportOfAnotherAmountAMismatchWhateverTheState() {
        EventDetails other = new EventDetails.ProviderReport("mockpay", "txn-1", 999, "EUR");
        assertEquals(ConflictVerdict.AMOUNT_MISMATCH, judge(PAYMENT_SUCCEEDED, other, null, PAY));
        assertEquals(ConflictVerdict.AMOUNT_MISMATCH, judge(PAYMENT_SUCCEEDED,
                new EventDetails.ProviderReport("mockpay", "txn-1", 1000, "USD"), null, PAY, PAYMENT_SUCCEEDED));
    }

    /** Every (state, event) the table allows, reached by the shortest path from CREATED. */
    static Stream<Arguments> everyApplicableMove() {
        Map<OrderStatus, List<OrderEvent>> paths = new EnumMap<>(OrderStatus.class);
        ArrayDeque<OrderStatus> queue = new ArrayDeque<>(List.of(OrderStatus.CREATED));
        paths.put(OrderStatus.CREATED, List.of());
        while (!queue.isEmpty()) {
            OrderStatus from = queue.poll();
            for (OrderEvent event : OrderTransitions.allowedEvents(from)) {
                OrderStatus to = OrderTransitions.next(from, event).orElseThrow();
                if (!paths.containsKey(to)) {
                    List<OrderEvent> path = new ArrayList<>(paths.get(from));
                    path.add(event);
                    paths.put(to, path);
                    queue.add(to);
                }
            }
        }
        // a conditional rule (PAY while PAYMENT_PENDING: only with another provider) has a test of its own
        return paths.entrySet().stream().flatMap(e -> OrderTransitions.allowedEvents(e.getKey()).stream()
                .filter(event -> OrderTransitions.condition(e.getKey(), event) == OrderTransitions.Condition.ALWAYS)
                .map(event -> Arguments.of(e.getKey(), event, e.getValue())));
    }

    @Test
    void shouldCallPayWithTheSameProviderWhilePendingADuplicateAndWithAnotherOneARetry() {
        EventDetails mockpay = new EventDetails.Pay("mockpay");
        EventDetails stripe = new EventDetails.Pay("stripe");
        Order pending = OrderFixtures.created().apply(PAY, mockpay, OrderFixtures.T0.plusSeconds(1));
        Order switched = pending.apply(PAY, stripe, OrderFixtures.T0.plusSeconds(2));
        List<Transition> history = List.of(
                new Transition(1, PAY, OrderStatus.CREATED, OrderStatus.PAYMENT_PENDING, null, "api", null, null,
                        mockpay),
                new Transition(2, PAY, OrderStatus.PAYMENT_PENDING, OrderStatus.PAYMENT_PENDING, null, "api", null,
                        null, stripe));
        assertEquals(ConflictVerdict.DUPLICATE, ConflictVerdict.judge(switched, PAY, stripe, null, history));
        assertEquals(ConflictVerdict.RETRY, ConflictVerdict.judge(switched, PAY, mockpay, null, history));
    }

    @Test
    void shouldCallAFailureOfAnotherAttemptOrARefundOfAnotherCaptureNotConcerned() {
        UUID attempt = UUID.randomUUID();
        Order pending = OrderFixtures.created().apply(PAY, new EventDetails.Pay("mockpay"), OrderFixtures.T0);
        EventDetails failureOfAnother = new EventDetails.ProviderReport("mockpay", "txn-1", 1000, "EUR",
                UUID.randomUUID());
        assertEquals(ConflictVerdict.NOT_CONCERNED, ConflictVerdict.judge(pending, PAYMENT_FAILED, failureOfAnother,
                null, OrderFixtures.history(PAY)));
        Order paid = OrderFixtures.orderAfter(PAY, PAYMENT_SUCCEEDED, CANCEL);
        EventDetails refundOfAnother = new EventDetails.ProviderReport("mockpay", "txn-other", 1000, "EUR", attempt);
        assertEquals(ConflictVerdict.NOT_CONCERNED, ConflictVerdict.judge(paid, REFUND_SUCCEEDED, refundOfAnother,
                null, OrderFixtures.history(PAY, PAYMENT_SUCCEEDED, CANCEL)));
    }

    @ParameterizedTest(name = "{1} repeated after it moved an order from {0}")
    @MethodSource("everyApplicableMove")
    void shouldCallARepeatADuplicateOnlyWhenItAsksForWhatWasApplied(OrderStatus from, OrderEvent event,
            List<OrderEvent> path) {
        List<OrderEvent> past = new ArrayList<>(path);
        past.add(event);
        OrderEvent[] history = past.toArray(OrderEvent[]::new);
        assertEquals(ConflictVerdict.DUPLICATE, judge(event, OrderFixtures.detailsFor(event), null, history),
                "the same request again");
        EventDetails other = switch (event) {
            case SHIP -> new EventDetails.Ship("DHL", "another tracking number");
            case CANCEL -> new EventDetails.Cancel("another reason");
            default -> OrderFixtures.detailsFor(event);
        };
        ConflictVerdict expected = event == SHIP || event == CANCEL ? ConflictVerdict.CONFLICT : ConflictVerdict.DUPLICATE;
        assertEquals(expected, judge(event, other, null, history), "the event asked with other details");
    }
}
