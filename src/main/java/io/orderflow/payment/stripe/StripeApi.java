package io.orderflow.payment.stripe;

import com.fasterxml.jackson.databind.JsonNode;
import com.stripe.StripeClient;
import com.stripe.exception.ApiConnectionException;
import com.stripe.exception.IdempotencyException;
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

    /** GET /v1/refunds?charge=...: the charge's refunds, to find the one a command made without knowing its id. */
    Uni<JsonNode> listRefunds(String chargeId) {
        RefundListParams params = RefundListParams.builder().setCharge(chargeId).setLimit(100L).build();
        return call(() -> client.v1().refunds().list(params));
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
        if (e instanceof IdempotencyException) {
            return new ProviderDeclined("idempotency_error", message);
        }
        return new ProviderDeclined(code, message);
    }
}
