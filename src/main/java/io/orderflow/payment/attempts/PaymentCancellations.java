package io.orderflow.payment.attempts;

import io.orderflow.common.MicrosecondClock;
import io.orderflow.payment.commands.ProviderCommands;
import io.orderflow.payment.spi.PaymentProvider;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.UUID;
import org.jboss.logging.Logger;

/**
 * The payment a PAY created at its provider and then did not move its order with (another request won the
 * compare-and-set) is owed a cancel there: a durable CANCEL command, sent by the worker ({@code CancelCommands}) with
 * its retries and logs. The attempts a PAY replaced need nothing here: the PAY's own statement wrote their cancels
 * ({@link PaymentWrites#started}). Nothing here fails the PAY: a cancel that cannot be written is logged.
 */
@ApplicationScoped
public class PaymentCancellations {

    private static final Logger LOG = Logger.getLogger(PaymentCancellations.class);

    private final ProviderCommands commands;
    private final MicrosecondClock time;

    public PaymentCancellations(ProviderCommands commands, MicrosecondClock time) {
        this.commands = commands;
        this.time = time;
    }

    /**
     * After the statement of a PAY that started attempt {@code attemptId} of order {@code orderId} ({@code reference}
     * at its provider, for {@code amount} {@code currency}). A PAY that did not move its order leaves its payment
     * owed a cancel, unless its attempt was stored: the attempt id derives from the order and the Idempotency-Key, so
     * copies of one PAY (on two replicas while Redis is down) create the same PaymentIntent or out_trade_no, and a
     * copy that finds the attempt stored lost to another copy of itself, which handed that very payment to the
     * shopper.
     */
    Uni<Void> afterPay(boolean moved, UUID orderId, UUID attemptId, PaymentProvider provider, String reference,
            long amount, String currency) {
        if (moved || reference == null) {
            return Uni.createFrom().voidItem();
        }
        return commands.cancelAbandoned(orderId, attemptId, provider.name(), reference, amount, currency, time.now())
                .onFailure().recoverWithUni(failure -> {
                    LOG.errorf("%s: payment %s of a PAY that did not move order %s could not be owed its cancel; it"
                            + " stays payable at the provider (a capture of it is refunded like any): %s",
                            provider.name(), reference, orderId, failure.getMessage());
                    return Uni.createFrom().voidItem();
                });
    }
}
