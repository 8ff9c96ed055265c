package io.orderflow.payment.attempts;

import io.orderflow.common.Callers;
import io.orderflow.common.SameStatementWrite;
import io.orderflow.events.RefundEvents;
import io.orderflow.order.TransitionCommand;
import io.orderflow.order.TransitionParticipant;
import io.orderflow.order.domain.EventDetails;
import io.orderflow.order.domain.OrderEvent;
import io.orderflow.payment.commands.ProviderCommands;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The payment module's part in an order's transitions. PAY starts an attempt ({@link AttemptStarts}): the payment is
 * created at the provider first, then the attempt row and the order's current attempt ride in the move's statement.
 * A provider's report records the capture, the failure or the refund on the attempt in the same statement
 * ({@link PaymentWrites}); a move to REFUND_PENDING writes the refund it owes there too, a CANCEL of a pending
 * payment the cancel it owes the provider ({@link ProviderCommands}).
 */
@ApplicationScoped
public class PaymentParticipant implements TransitionParticipant {

    /** Who issues the refund of a capture that arrived after its order was cancelled. */
    static final String SERVICE = "orderflow";

    private final AttemptStarts starts;
    private final SameStatementWrite refundEvent;

    public PaymentParticipant(AttemptStarts starts, RefundEvents refundEvents) {
        this.starts = starts;
        this.refundEvent = refundEvents.written();
    }

    @Override
    public Uni<Participation> participate(TransitionCommand command, Instant now) {
        if (command.details() instanceof EventDetails.Pay pay) {
            return starts.start(command, pay, now);
        }
        if (command.details() instanceof EventDetails.ProviderReport report) {
            List<SameStatementWrite> writes = new ArrayList<>(reportWrites(command, report, now));
            if (command.event() == OrderEvent.PAYMENT_SUCCEEDED) {
                // a capture after a cancel goes back
                writes.addAll(ProviderCommands.refundOwedBy(UUID.randomUUID(), SERVICE, now, refundEvent));
            }
            return writing(writes);
        }
        if (command.event() == OrderEvent.CANCEL) {
            // a CANCEL of a paid order owes the refund of its capture, of an order paying the cancel of its pending
            // payment at the provider (else the shopper could still pay it): durable commands, in the same statement
            List<SameStatementWrite> writes = new ArrayList<>(ProviderCommands.refundOwedBy(UUID.randomUUID(),
                    command.owner() != null ? command.owner() : Callers.OPERATOR, now, refundEvent));
            writes.add(ProviderCommands.cancelOwedBy(UUID.randomUUID(), now));
            return writing(writes);
        }
        return Uni.createFrom().item(Participation.NONE);
    }

    /** A replayed PAY gets the shopper's credential again ({@link AttemptStarts#resume}). */
    @Override
    public Uni<Map<String, Object>> replayReply(TransitionCommand command) {
        return starts.resume(command);
    }

    private static Uni<Participation> writing(List<SameStatementWrite> writes) {
        return Uni.createFrom().item(new Participation(writes, Map.of(), Map.of(), Participation.NONE.afterwards()));
    }

    private List<SameStatementWrite> reportWrites(TransitionCommand command,
            EventDetails.ProviderReport report, Instant now) {
        return switch (command.event()) {
            case PAYMENT_SUCCEEDED -> PaymentWrites.captured(report.attemptId(), report.provider(),
                    report.providerTxnId(), report.amount(), report.currency(), now);
            case PAYMENT_FAILED -> List.of(PaymentWrites.failed(report.attemptId(), now));
            case REFUND_SUCCEEDED, REFUND_COMPLETED -> PaymentWrites.refunded(report.provider(),
                    report.providerTxnId(), now, refundEvent);
            default -> List.of();
        };
    }
}
