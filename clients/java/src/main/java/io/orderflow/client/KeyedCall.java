package io.orderflow.client;

import io.orderflow.client.generated.ApiException;
import io.orderflow.client.generated.ApiResponse;

/** One attempt of a generated call ({@code ...WithHttpInfo}), given the call's key (null for a read). */
@FunctionalInterface
public interface KeyedCall<T> {

    ApiResponse<T> send(String idempotencyKey) throws ApiException;
}
