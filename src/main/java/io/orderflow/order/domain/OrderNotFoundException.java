package io.orderflow.order.domain;


public class OrderNotFoundException extends RuntimeException {

    public OrderNotFoundException(Object id) {
        super("No order " + id);
    }
}
