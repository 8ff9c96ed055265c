package io.orderflow.common;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.cache.CaffeineCacheMetrics;
import io.smallrye.jwt.auth.principal.DefaultJWTCallerPrincipalFactory;
import io.smallrye.jwt.auth.principal.JWTAuthContextInfo;
import io.smallrye.jwt.auth.principal.JWTCallerPrincipal;
import io.smallrye.jwt.auth.principal.JWTCallerPrincipalFactory;
import io.smallrye.jwt.auth.principal.ParseException;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;
import java.time.Duration;
import java.time.Instant;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Verifies each distinct bearer token once and remembers the result until the token expires. A client sends the
 * same token with every request for its lifetime, and checking an RS256 signature and parsing the claims was the
 * largest single cost of a request (about 40% of a GET's CPU, measured with JFR; see docs/benchmarks.md).
 *
 * <p>Safe because the cache is keyed by the exact token string: a token differing in any character is a miss and
 * is verified in full, and a remembered token is only answered while its {@code exp} lies in the future (without
 * the clock-skew allowance the full check grants). Failed verifications are never remembered. Bounded by
 * {@code orders.auth.verified-tokens.max-size}; 0 turns the cache off.
 *
 * <p>Only tokens that also pass {@link TokenPolicy} are remembered (and answered).
 */
@Alternative
@Priority(1)
@ApplicationScoped
public class VerifiedTokens extends JWTCallerPrincipalFactory {

    private final JWTCallerPrincipalFactory verifier = new DefaultJWTCallerPrincipalFactory();
    private final Cache<String, JWTCallerPrincipal> verified;

    public VerifiedTokens(@ConfigProperty(name = "orders.auth.verified-tokens.max-size", defaultValue = "10000")
            long maxSize, MeterRegistry registry) {
        this.verified = Caffeine.newBuilder().maximumSize(maxSize).expireAfterWrite(Duration.ofHours(1))
                .recordStats().build();
        CaffeineCacheMetrics.monitor(registry, verified, "verified-tokens");
    }

    @Override
    public JWTCallerPrincipal parse(String token, JWTAuthContextInfo authContextInfo) throws ParseException {
        JWTCallerPrincipal known = verified.getIfPresent(token);
        if (known != null && known.getExpirationTime() > Instant.now().getEpochSecond()) {
            return known;
        }
        JWTCallerPrincipal principal = verifier.parse(token, authContextInfo);
        TokenPolicy.check(principal, Instant.now().getEpochSecond(), authContextInfo.getClockSkew());
        verified.put(token, principal);
        return principal;
    }
}
