package io.orderflow.common.json;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.deser.std.StdScalarDeserializer;
import java.io.IOException;

/**
 * Reads a JSON string that is safe to store and to replay: no C0/C1 control character or DEL (PostgreSQL refuses
 * NUL, and the rest are never data here) and no unpaired surrogate (which the database would store as {@code ?}
 * while the replayed answer kept it raw). Anything but a JSON string is refused too, never coerced.
 */
public class SafeText extends StdScalarDeserializer<String> {

    public SafeText() {
        super(String.class);
    }

    @Override
    public String deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
        if (!p.hasToken(JsonToken.VALUE_STRING)) {
            return (String) ctxt.handleUnexpectedToken(String.class, p);
        }
        String text = p.getText();
        if (!isSafe(text)) {
            throw new UnsafeTextException(p);
        }
        return text;
    }

    /** True when {@code text} has no control character and every surrogate is half of a pair. */
    public static boolean isSafe(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 0x20 || (c >= 0x7F && c <= 0x9F)) {
                return false;
            }
            if (Character.isHighSurrogate(c)) {
                if (i + 1 == text.length() || !Character.isLowSurrogate(text.charAt(i + 1))) {
                    return false;
                }
                i++;
            } else if (Character.isLowSurrogate(c)) {
                return false;
            }
        }
        return true;
    }
}
