/**
 * Payments: providers behind one interface, and a core that decides what their events mean for an order. An adapter
 * never decides an order's state; everything the core decides meets the one transition path
 * ({@code OrderService.transition}, the order module's), which API calls take too. Here, beside the sub-packages:
 * {@link io.orderflow.payment.PaymentProviders} (the providers whose settings are present), the counters
 * {@link io.orderflow.payment.PaymentMetrics} registers at zero, and {@code SameStatementSql}, which builds the
 * {@code SameStatementWrite}s the sub-packages put into an order's statement.
 *
 * <p>{@code spi}: what an adapter implements and returns, and all it may use of payment (LayerRulesTest).
 * {@link io.orderflow.payment.spi.PaymentProvider} is the one interface the core speaks (Kill Bill's payment plugin
 * API, cut to what orderflow needs): verify and parse a notification into a provider-neutral
 * {@link io.orderflow.payment.spi.Notification}, answer in the provider's own ack format, create, resume, query and
 * cancel a payment, create and query a refund. Outbound calls never fail; every outcome, a timeout included, is a
 * {@link io.orderflow.payment.spi.ProviderOutcome} whose status says what the core may do next
 * ({@link io.orderflow.payment.spi.ProviderCalls} runs each call behind a timeout, retries of transient failures and
 * a circuit breaker, traced by {@link io.orderflow.payment.spi.ProviderSpans}).
 *
 * <p>{@code mockpay}, {@code stripe}, {@code wechatpay}: one adapter package per provider, each a
 * {@code PaymentProvider} bean with its own config, that only translates. Adding a provider is adding a package.
 *
 * <p>{@code attempts}: PAY. {@link io.orderflow.payment.attempts.PaymentParticipant} takes part in the order's
 * transition through the order module's {@code TransitionParticipant} hook (the order module never imports this one);
 * {@link io.orderflow.payment.attempts.AttemptStarts} creates the payment at the provider, keyed by the attempt,
 * before the statement; {@code PaymentWrites} puts the attempt, and later the capture, failure or refund, into the
 * move's own statement; {@link io.orderflow.payment.attempts.PaymentCancellations} cancels at the provider what no
 * order stands on any more. {@link io.orderflow.payment.attempts.PaymentAttempts} and
 * {@link io.orderflow.payment.attempts.PaymentCaptures} store attempts and captures.
 *
 * <p>{@code callbacks}: notifications. {@link io.orderflow.payment.callbacks.CallbackResource} hands the raw request
 * to {@link io.orderflow.payment.callbacks.PaymentCallbacks}, which has the adapter verify it, matches it to an
 * attempt and runs it through the idempotency gate with the provider's event id as key;
 * {@link io.orderflow.payment.callbacks.ReportTransitions} turns it into the order's transition. What the report means
 * for the order — applied, duplicate, a stale attempt, a double capture, a refund of another capture, or an anomaly
 * (unknown attempt or order, illegal, amount mismatch, transaction reused) — is decided by one pure function,
 * {@code ReportVerdict}, of the match and the transition path's answer, and carried out by
 * {@link io.orderflow.payment.callbacks.ReportActions}; a refund's report likewise, decided by
 * {@code RefundReportVerdict} and carried out by {@link io.orderflow.payment.callbacks.RefundReports}.
 * {@link io.orderflow.payment.callbacks.Acknowledgements} answers every decided outcome with the provider's 2xx and a
 * failure with its refusal, a 5xx only when the failure is transient.
 *
 * <p>{@code commands}: money owed back, and payments to close, stored. A refund owed is a durable command
 * ({@link io.orderflow.payment.commands.ProviderCommands}) written in the statement of the decision that owes it; a
 * CANCEL of an order whose payment is pending owes the provider a cancel, a command of its own.
 *
 * <p>{@code workers}: what sends those commands. {@link io.orderflow.payment.workers.RefundWorker} claims due
 * commands and sends each with the command's own idempotency key, the cancels through
 * {@link io.orderflow.payment.workers.CancelCommands}, which applies the provider's answer like a reconciliation.
 *
 * <p>{@code refunds}: refunds of an order, issued by operators ({@link io.orderflow.payment.refunds.RefundResource})
 * and stored by {@link io.orderflow.payment.refunds.Refunds}; {@link io.orderflow.payment.refunds.RefundOutcomes}
 * settles each once. Each status change of a refund writes its CloudEvent into the outbox in the statement that makes
 * it ({@code RefundEvents}, the events module's: payment may use events, never the other way round).
 *
 * <p>{@code reconcile}: the janitor. {@link io.orderflow.payment.reconcile.Reconciler} asks providers about what
 * stayed pending or unconfirmed, and applies their answers
 * ({@link io.orderflow.payment.reconcile.ReconciliationAnswers}) exactly like notifications;
 * {@link io.orderflow.payment.reconcile.StuckPaymentsResource} lists what it left.
 *
 * <p>{@code anomalies}: what a provider sent that was not applied as sent, recorded once by
 * {@link io.orderflow.payment.anomalies.Anomalies} and listed and resolved by operators
 * ({@link io.orderflow.payment.anomalies.AnomalyResource}).
 *
 * <p>The parts stand in layers, none using one above it (LayerRulesTest): {@code spi}, {@code commands},
 * {@code anomalies} and {@code refunds} at the bottom; {@code attempts}; {@code callbacks}; {@code reconcile} and
 * {@code workers} on top.
 *
 * <p>Storage reads and writes through Hibernate Reactive; what must commit with an order's move is a
 * {@code SameStatementWrite} in its statement. docs/payments.md tells the whole story for operators.
 */
package io.orderflow.payment;
