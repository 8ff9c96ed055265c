package io.orderflow.common.problem;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** An RFC 9457 problem detail; {@code extensions} carry type-specific members such as {@code allowedEvents}. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({ "type", "title", "status", "detail" })
public record Problem(URI type, String title, int status, String detail,
        @JsonIgnore Map<String, Object> extensions) {

    public static final String MEDIA_TYPE = "application/problem+json";

    private static final Set<URI> DECISIONS = Stream.of(ProblemType.ILLEGAL_TRANSITION,
            ProblemType.TRANSITION_CONFLICT, ProblemType.PAYMENT_REFUSED, ProblemType.AMOUNT_MISMATCH)
            .map(ProblemType::uri).collect(Collectors.toUnmodifiableSet());

    public Problem {
        extensions = Map.copyOf(extensions);
    }

    public static Problem of(ProblemType type, String detail) {
        return new Problem(type.uri(), type.title(), type.status(), detail, Map.of());
    }

    public Problem with(String name, Object value) {
        Map<String, Object> more = new LinkedHashMap<>(extensions);
        more.put(name, value);
        return new Problem(type, title, status, detail, more);
    }

    @JsonAnyGetter
    public Map<String, Object> members() {
        return extensions;
    }

    /**
     * Whether this refusal is the operation's own decision, stored under the request's Idempotency-Key and replayed to
     * every repeat: the operation started and decided (the state machine refused the event, the order took it with
     * other details, the provider refused the payment or reported another amount). Every other refusal means the
     * operation never started (If-Match names another version, no such order, a value or provider that fails
     * validation) or may succeed later (5xx): nothing is stored, the key stays free, and a retry with it runs again.
     * See docs/idempotency.md.
     */
    @JsonIgnore
    public boolean isDecision() {
        return DECISIONS.contains(type);
    }
}
