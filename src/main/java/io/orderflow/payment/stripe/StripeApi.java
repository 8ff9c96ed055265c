package io.orderflow.payment.stripe;

import com.fasterxml.jackson.databind.JsonNode;
import com.stripe.StripeClient;
import com.stripe.exception.ApiConnectionException;
import com.stripe.exception.AuthenticationException;
import com.stripe.exception.IdempotencyException;
import com.stripe.exception.PermissionException;
import com.stripe.exception.RateLimitException;
import com.stripe.exception.StripeException;
import com.stripe.model.StripeObjectInterface;
import com.stripe.net.RequestOptions;
import com.stripe.param.PaymentIntentCreateParams;
import com.stripe.param.RefundCreateParams;
import com.stripe.param.RefundListParams;
import io.orderflow.payment.spi.PaymentRequest;
import io.orderflow.payment.spi.ProviderCalls;
import io.orderflow.payment.spi.ProviderDeclined;
import io.orderflow.payment.spi.ProviderJson;
import io.orderflow.payment.spi.ProviderOutcome;
import io.orderflow.payment.spi.ProviderUnavailable;
import io.orderflow.payment.spi.RefundRequest;
import io.smallrye.mutiny.Uni;
import java.net.ConnectException;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * Stripe's API through stripe-java, each call on a worker thread, answering the raw JSON of the object returned.
 * Stripe's failures are sorted for the guard: transient ones ({@link ProviderUnavailable}) are retried with the same
 * Idempotency-Key, final ones ({@link ProviderDeclined}) are not. The SDK's own retries are off: the guard retries.
 */
final class StripeApi {

    static final String ATTEMPT_KEY = "orderflow-attempt-";
    static final String REFUND_KEY = "orderflow-refund-";
    /** A refund of a charge already refunded in full: by whom is for a look-up to say. */
    static final String CHARGE_ALREADY_REFUNDED = "charge_already_refunded";
    /** Stripe's largest page of a list. */
    static final long PAGE = 100;

    private final StripeClient client;

    StripeApi(StripeConfig config) {
        int timeout = (int) config.httpTimeout().toMillis();
        this.client = StripeClient.builder().setApiKey(config.apiKey().orElseThrow())
                .setApiBase(config.apiBase().toString().replaceAll("/$", "")).setMaxNetworkRetries(0)
                .setConnectTimeout(timeout).setReadTimeout(timeout).build();
    }

    /** POST /v1/payment_intents, keyed by the attempt: a retried PAY finds the intent the first one made. */
    Uni<JsonNode> createIntent(PaymentRequest request) {
        PaymentIntentCreateParams params = PaymentIntentCreateParams.builder().setAmount(request.amount())
                .setCurrency(request.currency().toLowerCase(Locale.ROOT))
                .putMetadata("order_id", request.orderId().toString())
                .putMetadata("attempt_id", request.attemptId().toString()).build();
        RequestOptions options = RequestOptions.builder().setIdempotencyKey(ATTEMPT_KEY + request.attemptId())
                .build();
        return call(() -> client.v1().paymentIntents().create(params, options));
    }

    /** GET /v1/payment_intents/{id}: its status, and its client_secret for a replayed PAY. */
    Uni<JsonNode> retrieveIntent(String reference) {
        return call(() -> client.v1().paymentIntents().retrieve(reference));
    }

    Uni<JsonNode> cancelIntent(String reference) {
        return call(() -> client.v1().paymentIntents().cancel(reference));
    }

    /** POST /v1/refunds for one charge, keyed by the command and labelled with it so it can be found again. */
    Uni<JsonNode> createRefund(RefundRequest request) {
        RefundCreateParams params = RefundCreateParams.builder().setCharge(request.captureId())
                .setAmount(request.amount()).putMetadata("command_id", request.commandId().toString()).build();
        RequestOptions options = RequestOptions.builder().setIdempotencyKey(REFUND_KEY + request.commandId())
                .build();
        return call(() -> client.v1().refunds().create(params, options));
    }

    Uni<JsonNode> retrieveRefund(String refundId) {
        return call(() -> client.v1().refunds().retrieve(refundId));
    }

    /**
     * GET /v1/refunds?charge=...&limit=100[&starting_after=...]: one page of the charge's refunds, newest first, to
     * find the one a command made without knowing its id; {@code after} is the last refund of the page before.
     */
    Uni<JsonNode> listRefunds(String chargeId, String after) {
        RefundListParams.Builder params = RefundListParams.builder().setCharge(chargeId).setLimit(PAGE);
        if (after != null) {
            params.setStartingAfter(after);
        }
        RefundListParams built = params.build();
        return call(() -> client.v1().refunds().list(built));
    }

    private static Uni<JsonNode> call(Callable<? extends StripeObjectInterface> request) {
        return ProviderCalls.onWorker(() -> {
            try {
                return ProviderJson.tree(request.call().getLastResponse().body());
            } catch (StripeException e) {
                throw classify(e);
            }
        });
    }

    /** Which Stripe failures a retry with the same Idempotency-Key may cure, and whether the call may have run. */
    static RuntimeException classify(StripeException e) {
        String code = e.getCode() != null ? e.getCode() : "http_" + e.getStatusCode();
        String message = "Stripe: " + e.getMessage();
        if (e instanceof ApiConnectionException) {
            boolean neverConnected = e.getCause() instanceof ConnectException;
            return new ProviderUnavailable("connection", "Stripe could not be reached or did not answer",
                    !neverConnected);
        }
        if (e instanceof RateLimitException) {
            return new ProviderUnavailable(code, message, false);
        }
        Integer status = e.getStatusCode();
        if (status != null && (status >= 500 || status == 409)) {
            // 409: a request with this key is still running at Stripe; 5xx: Stripe may have done the work
            return new ProviderUnavailable(code, message, true);
        }
        if (e instanceof AuthenticationException || e instanceof PermissionException || e instanceof IdempotencyException
                || (status != null && (status == 401 || status == 403 || status == 404))
                || "resource_missing".equals(e.getCode())) {
            // a revoked or mistyped key, a restricted key without the right, a charge of another account or mode,
            // an Idempotency-Key reused with other parameters: Stripe did not judge the request, we could not ask
            return new ProviderDeclined(e instanceof IdempotencyException ? "idempotency_error" : code, message,
                    ProviderOutcome.Refusal.CANNOT_ASK);
        }
        if (CHARGE_ALREADY_REFUNDED.equals(e.getCode())) {
            return new ProviderDeclined(code, message, ProviderOutcome.Refusal.ALREADY_DONE);
        }
        // the request itself refused (charge_disputed, charge_expired_for_refund, amount_too_large...): final
        return new ProviderDeclined(code, message);
    }
}
