package io.orderflow.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.orderflow.support.Auth;
import io.smallrye.jwt.auth.principal.JWTAuthContextInfo;
import io.smallrye.jwt.auth.principal.ParseException;
import io.smallrye.jwt.util.KeyUtils;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The cache of verified bearer tokens, against real RS256 tokens signed with the dev key pair. */
class VerifiedTokensTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final VerifiedTokens tokens = new VerifiedTokens(100, registry);
    private final JWTAuthContextInfo context = context();

    private static JWTAuthContextInfo context() {
        try {
            JWTAuthContextInfo context = new JWTAuthContextInfo(
                    KeyUtils.decodePublicKey(Files.readString(Path.of("src/main/resources/dev/publicKey.pem"))),
                    Auth.ISSUER);
            context.setClockSkew(0);
            return context;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private double lookups(String result) {
        return registry.get("cache.gets").tag("cache", "verified-tokens").tag("result", result)
                .functionCounter().count();
    }

    private static String validFor(Duration lifetime) {
        return Auth.token(Callers.CUSTOMER, "c-cache", Instant.now().plus(lifetime));
    }

    @Test
    void aTokenSeenBeforeIsAnsweredWithoutBeingVerifiedAgain() throws ParseException {
        String token = validFor(Duration.ofHours(1));
        var first = tokens.parse(token, context);
        var again = tokens.parse(token, context);
        assertSame(first, again);
        assertEquals("c-cache", again.getSubject());
        assertEquals(1, lookups("hit"));
    }

    @Test
    void aTokenDifferingInOneCharacterFromARememberedOneIsVerifiedAndRefused() throws ParseException {
        String token = validFor(Duration.ofHours(1));
        tokens.parse(token, context);
        int i = token.lastIndexOf('.') + 20;
        String forged = token.substring(0, i) + (token.charAt(i) == 'A' ? 'B' : 'A') + token.substring(i + 1);
        assertThrows(ParseException.class, () -> tokens.parse(forged, context));
    }

    @Test
    void aRememberedTokenIsRefusedOnceItHasExpired() throws Exception {
        Instant expiry = Instant.now().plusSeconds(2);
        String token = Auth.token(Callers.CUSTOMER, "c-cache", expiry);
        tokens.parse(token, context);
        while (Instant.now().getEpochSecond() <= expiry.getEpochSecond()) {
            Thread.sleep(100);
        }
        assertThrows(ParseException.class, () -> tokens.parse(token, context));
    }

    @Test
    void aRefusedTokenIsNotRemembered() {
        String token = Auth.token(Callers.CUSTOMER, "c-cache", Instant.now().minusSeconds(5));
        assertThrows(ParseException.class, () -> tokens.parse(token, context));
        assertThrows(ParseException.class, () -> tokens.parse(token, context));
        assertEquals(0, lookups("hit"));
    }
}
