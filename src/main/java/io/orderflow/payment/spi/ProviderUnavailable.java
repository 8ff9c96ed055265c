package io.orderflow.payment.spi;

/**
 * A provider call failed for a reason that says nothing about the request (no connection, a 5xx, rate limiting):
 * the fault-tolerance layer retries these and counts them against the provider's circuit breaker.
 * {@code mayHaveHappened} is false only when the request certainly had no effect (it was never sent, or the
 * provider refused it before processing), which makes the outcome CANCELED rather than UNDEFINED.
 */
public class ProviderUnavailable extends RuntimeException {

    private final boolean mayHaveHappened;
    private final String code;

    public ProviderUnavailable(String code, String message, boolean mayHaveHappened) {
        super(message, null, false, false);
        this.code = code;
        this.mayHaveHappened = mayHaveHappened;
    }

    public boolean mayHaveHappened() {
        return mayHaveHappened;
    }

    public String code() {
        return code;
    }
}
