package io.orderflow.payment.spi;

/**
 * The provider answered the call with a final no (bad request, declined, not found, wrong credentials): retrying
 * cannot change it, and it says nothing about the provider's health, so it neither retries nor trips the breaker.
 */
public class ProviderDeclined extends RuntimeException {

    private final String code;

    public ProviderDeclined(String code, String message) {
        super(message, null, false, false);
        this.code = code;
    }

    public String code() {
        return code;
    }
}
