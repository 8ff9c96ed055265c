package io.orderflow.payment.spi;

import java.util.Objects;

/**
 * A value the shop's front end needs and nobody else may see: a Stripe PaymentIntent's {@code client_secret}, a
 * WeChat Pay {@code code_url}. It prints as {@code ***} so that no log line, exception or toString leaks it; only
 * {@link #reveal} hands it out, and only to the response that goes to the shopper.
 */
public final class Credential {

    private final String value;

    public Credential(String value) {
        this.value = Objects.requireNonNull(value);
    }

    public String reveal() {
        return value;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Credential c && c.value.equals(value);
    }

    @Override
    public int hashCode() {
        return value.hashCode();
    }

    @Override
    public String toString() {
        return "***";
    }
}
