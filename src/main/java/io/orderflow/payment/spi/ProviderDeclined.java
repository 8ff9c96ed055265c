package io.orderflow.payment.spi;

/**
 * The provider answered the call with a final no (bad request, declined, not found, wrong credentials): retrying
 * cannot change it, and it says nothing about the provider's health, so it neither retries nor trips the breaker.
 * {@code refusal} says which kind of no ({@link ProviderOutcome.Refusal}): a refusal of the request itself, one that
 * kept us from asking at all, or "done already".
 */
public class ProviderDeclined extends RuntimeException {

    private final String code;
    private final ProviderOutcome.Refusal refusal;

    public ProviderDeclined(String code, String message) {
        this(code, message, ProviderOutcome.Refusal.DECLINED);
    }

    public ProviderDeclined(String code, String message, ProviderOutcome.Refusal refusal) {
        super(message, null, false, false);
        this.code = code;
        this.refusal = refusal;
    }

    public String code() {
        return code;
    }

    public ProviderOutcome.Refusal refusal() {
        return refusal;
    }
}
