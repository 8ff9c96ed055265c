package io.orderflow.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.standardwebhooks.Webhook;
import com.standardwebhooks.exceptions.WebhookVerificationException;
import io.orderflow.client.generated.ApiClient;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Checks a webhook delivery with the Standard Webhooks reference implementation ({@code com.standardwebhooks}) and
 * reads its CloudEvent. Give it the endpoint's secret ({@code whsec_...}); during a rotation, the new and the old
 * one (the service signs with both for 24 h). Deliveries are at least once: deduplicate on {@link FeedEvent#id()}
 * (also the {@code webhook-id} header).
 */
public final class WebhookVerifier {

    private final List<Webhook> secrets = new ArrayList<>();
    private final ObjectMapper mapper = ApiClient.createDefaultObjectMapper();

    public WebhookVerifier(String... secrets) {
        if (secrets.length == 0) {
            throw new IllegalArgumentException("the endpoint's secret (whsec_...)");
        }
        for (String secret : secrets) {
            this.secrets.add(new Webhook(secret));
        }
    }

    /**
     * The delivery's event, if one of the secrets signed exactly this body with these headers' id and timestamp,
     * and the timestamp is within 5 minutes of now. Pass the body as received, byte for byte, before any parsing.
     */
    public FeedEvent verify(String body, Map<String, List<String>> headers) {
        Map<String, List<String>> lowerCase = new TreeMap<>();
        headers.forEach((name, values) -> lowerCase.put(name.toLowerCase(Locale.ROOT), values));
        WebhookVerificationException last = null;
        for (Webhook secret : secrets) {
            try {
                secret.verify(body, lowerCase);
                return new FeedEvent(parse(body), mapper);
            } catch (WebhookVerificationException e) {
                last = e;
            }
        }
        throw new InvalidWebhookException(last.getMessage(), last);
    }

    private JsonNode parse(String body) {
        try {
            return mapper.readTree(body);
        } catch (IOException e) {
            throw new InvalidWebhookException("a signed body that is no JSON: " + e.getMessage(), e);
        }
    }

    /** The delivery is not one of ours: answer it 4xx (or drop it) and handle nothing. */
    public static final class InvalidWebhookException extends RuntimeException {

        InvalidWebhookException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
