/**
 * Payments: providers behind one interface, and a core that decides what their events mean for an order.
 *
 * <p><b>The SPI</b>, in {@code spi}: what an adapter implements and returns, and all it may use of payment
 * (LayerRulesTest). {@link io.orderflow.payment.spi.PaymentProvider} is the one interface the core speaks (Kill
 * Bill's payment plugin API, cut to what orderflow needs): verify and parse a notification into a provider-neutral
 * {@link io.orderflow.payment.spi.Notification}, answer in the provider's own ack format, create, resume, query and
 * cancel a payment, create and query a refund. Outbound calls never fail; every outcome, a timeout included, is a
 * {@link io.orderflow.payment.spi.ProviderOutcome} whose status says what the core may do next
 * ({@link io.orderflow.payment.spi.ProviderCalls} runs each call behind a timeout, retries of transient failures and
 * a circuit breaker).
 *
 * <p><b>Adapters translate.</b> One package per provider ({@code mockpay}, {@code stripe}, {@code wechatpay}), each
 * a {@code PaymentProvider} bean with its own config; {@link io.orderflow.payment.PaymentProviders} offers those whose
 * settings are present. An adapter never decides an order's state. Adding a provider is adding a package.
 *
 * <p><b>The core decides</b>, in this package, and everything meets the one transition path
 * ({@code OrderService.transition}, the order module's), which API calls take too:
 * <ul>
 * <li>PAY: {@link io.orderflow.payment.PaymentParticipant} takes part in the order's transition through the order
 * module's {@code TransitionParticipant} hook (the order module never imports this one).
 * {@link io.orderflow.payment.AttemptStarts} creates the payment at the provider, keyed by the attempt, before the
 * statement; {@link io.orderflow.payment.PaymentWrites} puts the attempt, and later the capture, failure or refund,
 * into the move's own statement; {@link io.orderflow.payment.PaymentCancellations} cancels at the provider what no
 * order stands on any more.</li>
 * <li>Notifications: {@link io.orderflow.payment.CallbackResource} hands the raw request to
 * {@link io.orderflow.payment.PaymentCallbacks}, which has the adapter verify it, matches it to an attempt and runs
 * it through the idempotency gate with the provider's event id as key; {@link io.orderflow.payment.ReportTransitions}
 * turns it into the order's transition. What moves no order is decided by
 * {@link io.orderflow.payment.AnomalousReports} (recorded as an anomaly) and {@link io.orderflow.payment.OtherPayments}
 * (a stale attempt, a double capture, a refund of another capture). {@link io.orderflow.payment.Acknowledgements}
 * answers every decided outcome with the provider's 2xx and a failure with its refusal, a 5xx only when the failure
 * is transient.</li>
 * <li>Money owed back: a refund owed is a durable command ({@link io.orderflow.payment.ProviderCommands}) written in
 * the statement of the decision that owes it; {@link io.orderflow.payment.RefundWorker} sends it with the command's
 * own idempotency key. Each status change of a refund writes its CloudEvent into the outbox in the statement that
 * makes it ({@code RefundEvents}, the events module's: payment may use events, never the other way round). A CANCEL
 * of an order whose payment is pending owes the provider a cancel, a command of its own that the same worker sends
 * ({@link io.orderflow.payment.CancelCommands}).</li>
 * <li>The janitor: {@link io.orderflow.payment.Reconciler} asks providers about what stayed pending or unconfirmed,
 * and applies their answers ({@link io.orderflow.payment.QueryAnswers}) exactly like notifications.</li>
 * </ul>
 *
 * <p>Storage: {@link io.orderflow.payment.PaymentAttempts}, {@link io.orderflow.payment.PaymentCaptures},
 * {@link io.orderflow.payment.ProviderCommands} and {@link io.orderflow.payment.Anomalies} read and write through
 * Hibernate Reactive; what must commit with an order's move is a {@code SameStatementWrite} in its statement.
 * docs/payments.md tells the whole story for operators.
 */
package io.orderflow.payment;
