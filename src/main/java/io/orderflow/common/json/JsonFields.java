package io.orderflow.common.json;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.exc.StreamReadException;
import com.fasterxml.jackson.databind.JsonMappingException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Names the field a JSON failure is about as clients wrote it: {@code items[].sku}; null when it is the body. */
public final class JsonFields {

    private JsonFields() {
    }

    public static String of(JsonMappingException failure) {
        StringBuilder field = new StringBuilder();
        for (JsonMappingException.Reference ref : failure.getPath()) {
            append(field, ref.getFieldName());
        }
        // a parse failure inside a list element comes wrapped, with the list's path; the parser names the field
        if (failure.getCause() instanceof StreamReadException read) {
            Matcher duplicate = DUPLICATE.matcher(String.valueOf(read.getOriginalMessage()));
            if (duplicate.find()) {
                append(field, duplicate.group(1));
            }
        }
        return field.isEmpty() ? null : field.toString();
    }

    /** Where the parser stood when it refused the body (a field sent twice: that field). */
    public static String of(StreamReadException failure) {
        JsonParser parser = failure.getProcessor();
        if (parser == null) {
            return null;
        }
        Deque<String> names = new ArrayDeque<>();
        for (JsonStreamContext c = parser.getParsingContext(); c != null && !c.inRoot(); c = c.getParent()) {
            if (c.inArray()) {
                names.push("[]");
            } else if (c.getCurrentName() != null) {
                names.push(c.getCurrentName());
            }
        }
        // the innermost object's context does not always hold the duplicate's name yet; the message does
        Matcher duplicate = DUPLICATE.matcher(String.valueOf(failure.getOriginalMessage()));
        if (duplicate.find() && !duplicate.group(1).equals(names.peekLast())) {
            names.addLast(duplicate.group(1));
        }
        StringBuilder field = new StringBuilder();
        names.forEach(name -> append(field, name.equals("[]") ? null : name));
        return field.isEmpty() ? null : field.toString();
    }

    private static final Pattern DUPLICATE = Pattern.compile(
            "^Duplicate (?:field|Object property) ['\"]([^'\"]*)['\"]");

    private static void append(StringBuilder field, String name) {
        if (name == null) {
            field.append("[]");
        } else {
            field.append(field.isEmpty() ? "" : ".").append(name);
        }
    }
}
