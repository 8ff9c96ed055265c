package io.orderflow.order.domain;

/** One line of an order; prices in minor units (cents). Validates itself. */
public record LineItem(String sku, int quantity, long unitPrice) {

    public static final int MAX_SKU_LENGTH = 64;

    public LineItem {
        InvalidOrderException.require(sku != null && !sku.isBlank(), "items[].sku", "must not be blank");
        InvalidOrderException.require(sku.length() <= MAX_SKU_LENGTH, "items[].sku",
                "must be at most " + MAX_SKU_LENGTH + " characters");
        InvalidOrderException.require(quantity > 0, "items[].quantity", "must be greater than 0");
        InvalidOrderException.require(unitPrice >= 0, "items[].unitPrice", "must be 0 or more (minor units)");
    }

    /** quantity × unitPrice, refusing to overflow a long. */
    public long total() {
        try {
            return Math.multiplyExact(unitPrice, (long) quantity);
        } catch (ArithmeticException e) {
            throw new InvalidOrderException("items[].unitPrice", "quantity × unitPrice overflows the amount");
        }
    }
}
