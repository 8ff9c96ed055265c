package io.orderflow.common;

import io.quarkus.security.ForbiddenException;
import io.quarkus.security.UnauthorizedException;
import io.quarkus.security.identity.SecurityIdentity;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import org.eclipse.microprofile.jwt.JsonWebToken;

/**
 * Who is calling, from the verified bearer token. Customers act on their own orders only (their id is the token's
 * {@code sub}, never {@code upn} or {@code preferred_username}); operators on any. A token with neither role is no
 * caller of the order API (403). Idempotency keys are scoped to the caller, so two callers never see each other's
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
        // the principal's name falls back to upn and preferred_username: only the subject identifies a customer
        String subject = id.getPrincipal() instanceof JsonWebToken token ? token.getSubject() : null;
        if (subject == null || subject.isBlank()) {
            throw new UnauthorizedException();
        }
        boolean operator = id.hasRole(OPERATOR);
        if (!operator && !id.hasRole(CUSTOMER)) {
            throw new ForbiddenException("The token carries neither the customer nor the operator role");
        }
        return new Caller(subject, operator);
    }
}
