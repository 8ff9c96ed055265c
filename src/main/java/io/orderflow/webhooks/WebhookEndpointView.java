package io.orderflow.webhooks;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * An endpoint as the API shows it. {@code secret} only in the answer that made it (creation, rotation): it is
 * shown once. {@code types} empty means every type. {@code disabledReason} only while disabled.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record WebhookEndpointView(UUID id, String url, List<String> types, String description, String status,
        String disabledReason, Instant createdAt, String secret) {

    static WebhookEndpointView of(WebhookEndpoint endpoint, boolean withSecret) {
        return new WebhookEndpointView(endpoint.id(), endpoint.url(), endpoint.types(), endpoint.description(),
                endpoint.status(), "disabled".equals(endpoint.status()) ? endpoint.disabledReason() : null,
                endpoint.createdAt(), withSecret ? endpoint.secret() : null);
    }
}
