package io.orderflow.order.domain;

/** A provider reported a payment whose amount or currency is not the order's; the order does not move. */
public class AmountMismatchException extends RuntimeException {

    public AmountMismatchException(Order order, long amount, String currency) {
        super("The provider reported " + amount + " " + currency + " for an order of " + order.amount() + " "
                + order.currency());
    }
}
