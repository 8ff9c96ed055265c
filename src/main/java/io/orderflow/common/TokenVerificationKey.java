package io.orderflow.common;

import io.quarkus.runtime.Startup;
import io.quarkus.runtime.configuration.ConfigurationException;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import org.eclipse.microprofile.config.Config;

/**
 * Refuses to start without a key to verify bearer tokens. SmallRye JWT itself starts without one and then answers
 * every request 401, logging nothing that says why: a deployment that forgot the key looked healthy and refused
 * everybody. The dev and test profiles trust the dev key pair; production names its identity provider's key
 * (docs/security.md).
 */
@Startup
@ApplicationScoped
public class TokenVerificationKey {

    /** The MicroProfile JWT settings that give the key: the key itself, or where to load it from (a JWKS URL). */
    static final List<String> SOURCES = List.of("mp.jwt.verify.publickey", "mp.jwt.verify.publickey.location",
            "smallrye.jwt.verify.key.location");

    static final String REFUSAL = "No key to verify bearer tokens: set MP_JWT_VERIFY_PUBLICKEY_LOCATION (your identity"
            + " provider's JWKS URL, or a PEM file) or MP_JWT_VERIFY_PUBLICKEY (the key itself), see docs/security.md";

    public TokenVerificationKey(Config config) {
        boolean configured = SOURCES.stream().anyMatch(name -> config.getOptionalValue(name, String.class)
                .filter(value -> !value.isBlank()).isPresent());
        if (!configured) {
            throw new ConfigurationException(REFUSAL);
        }
    }
}
