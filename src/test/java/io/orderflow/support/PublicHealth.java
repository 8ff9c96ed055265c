package io.orderflow.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The health endpoints are public (no token): whatever is down, they may say what is up and what is not, never why.
 * No exception class, no message, no address — those go to the log and the metrics.
 */
public final class PublicHealth {

    public static final List<String> ENDPOINTS = List.of("/q/health", "/q/health/ready", "/q/health/live");
    /** Everything a check may report as a value: a state, one word. */
    private static final Pattern STATE = Pattern.compile("[a-z]+");
    private static final Set<String> MEMBERS = Set.of("name", "status", "data");
    /** What a leaked failure looks like, wherever in the output it stands. */
    private static final Pattern LEAK = Pattern.compile(
            "(?i)exception|error|refused|timed? ?out|closed|java\\.|io\\.(vertx|netty|quarkus)|\\d+\\.\\d+\\.\\d+\\.\\d+");

    private PublicHealth() {
    }

    /** Asserts each endpoint names no failure; returns each endpoint's check name → data, for further assertions. */
    public static Map<String, Map<String, Object>> assertNamesNoFailure() {
        Map<String, Map<String, Object>> checks = new LinkedHashMap<>();
        for (String endpoint : ENDPOINTS) {
            String text = Management.given().get(endpoint).then().extract().asString();
            assertTrue(!LEAK.matcher(text).find(), endpoint + " names a failure: " + text);
            JsonObject health = new JsonObject(text);
            assertEquals(Set.of("status", "checks"), health.fieldNames(), endpoint + ": " + text);
            List<String> odd = new ArrayList<>();
            JsonArray all = health.getJsonArray("checks");
            for (int i = 0; i < all.size(); i++) {
                JsonObject check = all.getJsonObject(i);
                if (!MEMBERS.containsAll(check.fieldNames())) {
                    odd.add(check.encode());
                }
                JsonObject data = check.getJsonObject("data", new JsonObject());
                data.forEach(entry -> {
                    if (!(entry.getValue() instanceof String value) || !STATE.matcher(value).matches()) {
                        odd.add(check.getString("name") + "." + entry.getKey() + " = " + entry.getValue());
                    }
                });
                checks.put(endpoint + " " + check.getString("name"), data.getMap());
            }
            assertEquals(List.of(), odd, endpoint + " reports more than states: " + text);
        }
        return checks;
    }
}
