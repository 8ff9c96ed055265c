package io.orderflow.order.api;

import java.util.List;
import java.util.UUID;

/** A keyset page; pass {@code next} as {@code after} for the following page (null on the last one). */
public record OrderPage(List<OrderView> items, UUID next) {
}
