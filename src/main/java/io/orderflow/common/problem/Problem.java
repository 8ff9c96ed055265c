package io.orderflow.common.problem;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;

/** An RFC 9457 problem detail; {@code extensions} carry type-specific members such as {@code allowedEvents}. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({ "type", "title", "status", "detail" })
public record Problem(URI type, String title, int status, String detail,
        @com.fasterxml.jackson.annotation.JsonIgnore Map<String, Object> extensions) {

    public static final String MEDIA_TYPE = "application/problem+json";

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

    /** Business outcomes (4xx) are final and stored for replay; 5xx are transient and a retry may succeed. */
    @com.fasterxml.jackson.annotation.JsonIgnore
    public boolean isFinal() {
        return status < 500 && status != 408 && status != 429;
    }
}
