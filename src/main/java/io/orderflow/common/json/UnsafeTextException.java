package io.orderflow.common.json;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonMappingException;

/** A string field held a control character or an unpaired surrogate; its path names the field. */
public class UnsafeTextException extends JsonMappingException {

    public UnsafeTextException(JsonParser parser) {
        super(parser, "contains a control character or an unpaired surrogate");
    }
}
