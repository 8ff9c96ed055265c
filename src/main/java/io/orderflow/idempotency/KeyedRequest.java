package io.orderflow.idempotency;

import io.orderflow.common.Reply;
import java.util.UUID;
import java.util.function.Function;

/**
 * What the gate needs to know about a state-changing request.
 *
 * @param key the Idempotency-Key header as sent (null when absent)
 * @param required whether the operation refuses to run without a key
 * @param caller who is asking (a caller scope such as {@code customer:c-1}); keys never cross callers
 * @param operation method and route template, e.g. {@code POST /orders/{id}/ship}
 * @param target the resource the operation acts on (order id), empty for creations
 * @param canonicalBody the request body in canonical form, fingerprinted to catch a key reused for another request
 * @param tier the business tier that decides how long the record is kept
 * @param orderId the order the request is about, when known: recorded with the outcome for audits
 * @param renderResult renders the business row a first request's write stored with its record (the JSON of the
 *        row, see {@link KeyClaim#sameStatementRecord}) into the answer, exactly as the first request rendered it
 */
public record KeyedRequest(String key, boolean required, String caller, String operation, String target,
        byte[] canonicalBody, RetentionTier tier, UUID orderId, Function<String, Reply> renderResult) {
}
