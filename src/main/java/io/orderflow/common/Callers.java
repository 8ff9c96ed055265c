package io.orderflow.common;

import jakarta.enterprise.context.ApplicationScoped;

/**
 * Who is calling. Idempotency keys are scoped to the caller, so two callers can never see each other's stored
 * responses. Until authentication is configured every client is the same anonymous caller.
 */
@ApplicationScoped
public class Callers {

    public static final String ANONYMOUS = "anonymous";

    public String current() {
        return ANONYMOUS;
    }
}
