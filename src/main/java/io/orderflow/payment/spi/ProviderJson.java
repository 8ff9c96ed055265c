package io.orderflow.payment.spi;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.MissingNode;
import io.orderflow.common.json.SafeText;
import java.util.Locale;

/**
 * Reads provider JSON without the coercions JSON libraries apply by default: an amount is an integer number in the
 * JSON or it is no amount (Jackson would read 2500.9 as 2500, Gson "2500" as 2500). Adapters read money and ids
 * through here, whatever SDK parsed the rest. A body with bytes after its value or a field sent twice is no JSON
 * here, and a string holding a control character or an unpaired surrogate is no text ({@link SafeText}, the
 * rule the API's own bodies follow).
 */
public final class ProviderJson {

    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

    private ProviderJson() {
    }

    /** The tree of {@code text}, or a missing node when it is not JSON. */
    public static JsonNode tree(String text) {
        try {
            JsonNode node = JSON.readTree(text);
            return node == null ? MissingNode.getInstance() : node;
        } catch (JsonProcessingException e) {
            return MissingNode.getInstance();
        }
    }

    /** Minor units: a JSON integer from 0 to Long.MAX_VALUE, else null (a fraction, a string, a boolean...). */
    public static Long minorUnits(JsonNode node) {
        if (node == null || !node.isIntegralNumber() || !node.canConvertToLong() || node.asLong() < 0) {
            return null;
        }
        return node.asLong();
    }

    /** A non-blank JSON string of at most {@code max} characters, else null. */
    public static String text(JsonNode node, int max) {
        if (node == null || !node.isTextual() || node.asText().isBlank() || node.asText().length() > max
                || !SafeText.isSafe(node.asText())) {
            return null;
        }
        return node.asText();
    }

    /** An ISO 4217 code in upper case from a JSON string in either case ("eur", "CNY"), else null. */
    public static String currency(JsonNode node) {
        String code = text(node, 3);
        return code != null && code.matches("[A-Za-z]{3}") ? code.toUpperCase(Locale.ROOT) : null;
    }
}
