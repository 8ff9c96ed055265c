package io.orderflow.payment.stripe;

import com.fasterxml.jackson.databind.JsonNode;
import io.orderflow.common.Reply;
import io.orderflow.common.problem.Problem;
import io.orderflow.common.problem.ProblemMapper;
import io.orderflow.common.problem.ProblemType;
import io.orderflow.payment.spi.Acknowledgement;
import io.orderflow.payment.spi.Credential;
import io.orderflow.payment.spi.Notification;
import io.orderflow.payment.spi.NotificationRequest;
import io.orderflow.payment.spi.PaymentProvider;
import io.orderflow.payment.spi.PaymentRequest;
import io.orderflow.payment.spi.PaymentSession;
import io.orderflow.payment.spi.PaymentState;
import io.orderflow.payment.spi.ProviderCalls;
import io.orderflow.payment.spi.ProviderJson;
import io.orderflow.payment.spi.ProviderOutcome;
import io.orderflow.payment.spi.RefundRequest;
import io.orderflow.payment.spi.RefundState;
import io.smallrye.faulttolerance.api.Guard;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.core.MediaType;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Stripe: PaymentIntents, refunds and webhooks. Offered when {@code payments.providers.stripe.api-key} and
 * {@code .webhook-secrets} are set. The front end confirms the PaymentIntent with its {@code client_secret}
 * (Stripe.js); the outcome arrives as a webhook.
 */
@ApplicationScoped
public class StripeProvider implements PaymentProvider {

    public static final String NAME = "stripe";
    private static final byte[] RECEIVED = "{\"received\":true}".getBytes(StandardCharsets.UTF_8);
    /** How many pages of a charge's refunds a look-up reads (10,000 refunds) before it gives up, unanswered. */
    private static final int MAX_PAGES = 100;

    private final ProviderCalls calls;
    private final ProblemMapper problems;
    private final boolean configured;
    private final StripeWebhooks webhooks;
    private final StripeApi api;
    private final Guard guard;

    public StripeProvider(StripeConfig config, ProviderCalls calls, ProblemMapper problems) {
        this.calls = calls;
        this.problems = problems;
        boolean hasKey = config.apiKey().filter(key -> !key.isBlank()).isPresent();
        boolean hasSecrets = config.webhookSecrets().filter(secrets -> !secrets.isEmpty()).isPresent();
        if (hasKey != hasSecrets) {
            throw new IllegalStateException("Stripe is configured in part: set both payments.providers.stripe"
                    + ".api-key and payments.providers.stripe.webhook-secrets, or neither");
        }
        this.configured = hasKey;
        this.webhooks = configured ? new StripeWebhooks(config.webhookSecrets().orElseThrow(), config.tolerance())
                : null;
        this.api = configured ? new StripeApi(config) : null;
        this.guard = configured ? ProviderCalls.guard(NAME, config) : null;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean configured() {
        return configured;
    }

    @Override
    public Notification verify(NotificationRequest request, Instant now) {
        return webhooks.verify(request, now);
    }

    /** Stripe reads only the status; the body is its documented {@code {"received": true}}. */
    @Override
    public Reply acknowledge(Acknowledgement ack) {
        return new Reply(200, MediaType.APPLICATION_JSON, Map.of(), RECEIVED);
    }

    /** Stripe documents a 400 for a webhook whose signature does not verify; the rest keep their status. */
    @Override
    public Reply refuse(Problem problem, String retryAfter) {
        boolean signature = problem.type().equals(ProblemType.SIGNATURE_INVALID.uri());
        Problem answered = signature ? new Problem(problem.type(), problem.title(), 400, problem.detail(),
                problem.extensions()) : problem;
        return problems.toReply(answered, retryAfter);
    }

    @Override
    public Uni<ProviderOutcome<PaymentSession>> createPayment(PaymentRequest request) {
        return call("create-payment", () -> api.createIntent(request), StripeProvider::session);
    }

    /**
     * Retrieves the PaymentIntent, whose {@code client_secret} a secret-key read returns: asking create again would
     * make a second intent once Stripe has forgotten the idempotency key (after 24 hours).
     */
    @Override
    public Uni<ProviderOutcome<PaymentSession>> resumePayment(PaymentRequest request, String reference) {
        return call("resume-payment", () -> api.retrieveIntent(reference), StripeProvider::session);
    }

    private static ProviderOutcome<PaymentSession> session(JsonNode intent) {
        String secret = ProviderJson.text(intent.get("client_secret"), 1024);
        ProviderOutcome<PaymentState> state = StripeObjects.intent(intent);
        if (state.value() == null || state.value().reference() == null || secret == null) {
            return ProviderOutcome.of(ProviderOutcome.Status.UNDEFINED, "invalid-object",
                    "Stripe answered without a PaymentIntent id or client_secret");
        }
        PaymentSession session = new PaymentSession(state.value().reference(), new Credential(secret));
        return new ProviderOutcome<>(state.status(), session, state.code(), state.message());
    }

    @Override
    public Uni<ProviderOutcome<PaymentState>> queryPayment(String reference) {
        return call("query-payment", () -> api.retrieveIntent(reference), StripeObjects::intent);
    }

    @Override
    public Uni<ProviderOutcome<Void>> cancelPayment(String reference) {
        return call("cancel-payment", () -> api.cancelIntent(reference), intent -> ProviderOutcome.processed(null));
    }

    @Override
    public Uni<ProviderOutcome<RefundState>> createRefund(RefundRequest request) {
        return call("create-refund", () -> api.createRefund(request), StripeObjects::refund);
    }

    /**
     * By refund id when a previous call learnt it; otherwise among the charge's refunds, the one labelled with the
     * command, page after page (Stripe lists 100 at most per page). None on any page:
     * {@link ProviderOutcome#notFound} — nothing was refunded for this command, it is safe to send. A page Stripe did
     * not answer (429, no connection, circuit open) is a CANCELED of another code: not "none".
     */
    @Override
    public Uni<ProviderOutcome<RefundState>> queryRefund(RefundRequest request) {
        if (request.refundId() != null) {
            return call("query-refund", () -> api.retrieveRefund(request.refundId()), StripeObjects::refund);
        }
        return refundOfCommand(request.captureId(), request.commandId().toString(), null, 1);
    }

    /** The page of the charge's refunds after {@code after}, and those after it while Stripe says it has more. */
    private Uni<ProviderOutcome<RefundState>> refundOfCommand(String charge, String command, String after, int page) {
        return call("query-refund", () -> api.listRefunds(charge, after), ProviderOutcome::processed).chain(listed -> {
            if (!listed.is(ProviderOutcome.Status.PROCESSED)) {
                return Uni.createFrom().item(new ProviderOutcome<RefundState>(listed.status(), null, listed.code(),
                        listed.message(), listed.refusal()));
            }
            JsonNode refunds = listed.value().path("data");
            for (JsonNode refund : refunds) {
                if (command.equals(refund.path("metadata").path("command_id").asText(null))) {
                    return Uni.createFrom().item(StripeObjects.refund(refund));
                }
            }
            String last = refunds.isEmpty() ? null : StripeObjects.id(refunds.get(refunds.size() - 1));
            if (!listed.value().path("has_more").asBoolean(false) || last == null) {
                return Uni.createFrom().item(ProviderOutcome.<RefundState>notFound(
                        "Stripe has no refund for this command"));
            }
            return page < MAX_PAGES ? refundOfCommand(charge, command, last, page + 1)
                    : Uni.createFrom().item(ProviderOutcome.<RefundState>of(ProviderOutcome.Status.UNDEFINED,
                            "too-many-refunds", "Stripe lists more than " + MAX_PAGES + " pages of refunds of " + charge
                                    + "; the command's was not on them"));
        });
    }

    private <T> Uni<ProviderOutcome<T>> call(String operation, Supplier<Uni<JsonNode>> request,
            Function<JsonNode, ProviderOutcome<T>> read) {
        return calls.call(NAME, guard, operation, request, read);
    }
}
