package io.orderflow.order.domain;

import static io.orderflow.order.domain.OrderEvent.*;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The duplicate / retry / illegal decision, a pure function of the table and the history. */
class ConflictVerdictTest {

    private static ConflictVerdict judge(OrderEvent event, OrderEvent... past) {
        List<Transition> history = OrderFixtures.history(past);
        return ConflictVerdict.judge(OrderFixtures.statusAfter(history), event, history);
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
        assertEquals(ConflictVerdict.ILLEGAL, judge(REFUND_SUCCEEDED, PAY));
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
}
