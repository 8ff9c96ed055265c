package io.orderflow.common;

import io.quarkus.security.identity.SecurityIdentity;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;

/**
 * Who is calling, from the verified bearer token. Customers act on their own orders only (their subject is their
 * customer id); operators on any. Idempotency keys are scoped to the caller, so two callers never see each other's
 * stored responses.
 */
@ApplicationScoped
public class Callers {

    public static final String CUSTOMER = "customer";
    public static final String OPERATOR = "operator";

    /** The caller as the rest of the service needs it. */
    public record Caller(String name, boolean operator) {

        /** The customer whose orders this caller may see and touch, or null for all (an operator). */
        public String owner() {
            return operator ? null : name;
        }

        /** The caller's identity in idempotency scopes. */
        public String scope() {
            return (operator ? OPERATOR : CUSTOMER) + ":" + name;
        }
    }

    private final Instance<SecurityIdentity> identity;

    public Callers(Instance<SecurityIdentity> identity) {
        this.identity = identity;
    }

    public Caller current() {
        SecurityIdentity id = identity.get();
        return new Caller(id.getPrincipal().getName(), id.hasRole(OPERATOR));
    }
}
