package io.orderflow.common.problem;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.exc.StreamReadException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import io.orderflow.common.json.JsonFields;
import io.orderflow.common.json.UnsafeTextException;

/** A body Jackson refused, as a 400 problem that names the field when there is one. */
final class JsonProblems {

    private JsonProblems() {
    }

    static Problem of(JsonProcessingException failure) {
        if (failure instanceof UnsafeTextException unsafe) {
            String field = fieldOr(JsonFields.of(unsafe));
            return Problem.of(ProblemType.INVALID_REQUEST,
                    field + " must not contain control characters or unpaired surrogates").with("field", field);
        }
        String field = failure instanceof JsonMappingException mapping ? JsonFields.of(mapping)
                : failure instanceof StreamReadException read ? JsonFields.of(read) : null;
        if (field == null) {
            String detail = failure instanceof MismatchedInputException
                    ? "The body is not one JSON value of the expected shape"
                    : "The body could not be read as the expected JSON";
            return Problem.of(ProblemType.MALFORMED_BODY, detail);
        }
        String detail = failure instanceof StreamReadException
                ? "The body is not strict JSON at " + field + " (a field sent twice, or a syntax error)"
                : field + " has the wrong type or format";
        return Problem.of(ProblemType.MALFORMED_BODY, detail).with("field", field);
    }

    private static String fieldOr(String field) {
        return field == null ? "body" : field;
    }
}
