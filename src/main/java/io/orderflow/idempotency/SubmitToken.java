package io.orderflow.idempotency;

import io.quarkus.hibernate.reactive.panache.PanacheEntityBase;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;

/** A one-time submit token: issued to a caller, bound to the first operation that uses it as its key. */
@Entity
@Table(name = "submit_tokens")
public class SubmitToken extends PanacheEntityBase {

    @Id
    public String token;

    @Column(nullable = false)
    public String caller;

    @Column(name = "issued_at", nullable = false)
    public Instant issuedAt;

    @Column(name = "expires_at", nullable = false)
    public Instant expiresAt;

    /** The scope (caller, operation, target) of the request that consumed the token; null while unused. */
    @Column(name = "consumed_scope")
    public String consumedScope;

    @Column(name = "consumed_at")
    public Instant consumedAt;
}
