package io.orderflow.idempotency;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.NamedQuery;
import jakarta.persistence.Table;
import java.time.Instant;

/** A one-time submit token: issued to a caller, bound to the first operation that uses it as its key. */
@Entity
@Table(name = "submit_tokens")
@NamedQuery(name = SubmitToken.REDEEM, query = "update SubmitToken set consumedScope = :scope, consumedAt = :now"
        + " where token = :token and caller = :caller"
        + " and ((consumedScope is null and expiresAt > :now) or consumedScope = :scope)")
public class SubmitToken {

    /** Named, so that Hibernate parses it at boot and never on the event loop. */
    static final String REDEEM = "SubmitToken.redeem";

    @Id
    @Column(columnDefinition = "text")
    public String token;

    @Column(nullable = false, columnDefinition = "text")
    public String caller;

    @Column(name = "issued_at", nullable = false)
    public Instant issuedAt;

    @Column(name = "expires_at", nullable = false)
    public Instant expiresAt;

    /** The scope (caller, operation, target) of the request that consumed the token; null while unused. */
    @Column(name = "consumed_scope", columnDefinition = "text")
    public String consumedScope;

    @Column(name = "consumed_at")
    public Instant consumedAt;
}
