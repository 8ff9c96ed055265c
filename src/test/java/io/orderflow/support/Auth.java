package io.orderflow.support;

import static io.restassured.RestAssured.given;

import io.orderflow.common.Callers;
import io.restassured.specification.RequestSpecification;
import io.smallrye.jwt.build.Jwt;
import io.smallrye.jwt.util.KeyUtils;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** Mints bearer tokens with the dev key pair (which the test profile trusts) and starts requests carrying them. */
public final class Auth {

    public static final String ISSUER = "https://orderflow.dev/dev-issuer";
    private static final PrivateKey KEY = load();
    private static final Map<String, String> CACHE = new ConcurrentHashMap<>();

    private Auth() {
    }

    public static String token(String role, String subject, Instant expiresAt) {
        return Jwt.issuer(ISSUER).subject(subject).upn(subject).groups(Set.of(role))
                .issuedAt(Instant.now()).expiresAt(expiresAt).sign(KEY);
    }

    /** A token valid for an hour; minted once per role and subject (RSA signing is the costly part of a test call). */
    public static String token(String role, String subject) {
        return CACHE.computeIfAbsent(role + " " + subject,
                k -> token(role, subject, Instant.now().plus(Duration.ofHours(1))));
    }

    /**
     * A token with these claims, signed with the dev key: the issuer is added, and the library adds {@code iat},
     * {@code exp} (five minutes) and {@code jti} when they are not given. For the identity edge cases (no {@code sub},
     * {@code sub} and {@code upn} disagreeing, both roles, {@code iat} in the future).
     */
    public static String tokenWith(Map<String, Object> claims) {
        return Jwt.claims(claims).issuer(ISSUER).sign(KEY);
    }

    public static RequestSpecification customer(String customerId) {
        return bearer(token(Callers.CUSTOMER, customerId));
    }

    public static RequestSpecification operator() {
        return operator("ops-1");
    }

    /** An operator whose token's subject is {@code subject}. */
    public static RequestSpecification operator(String subject) {
        return bearer(token(Callers.OPERATOR, subject));
    }

    /** A request carrying {@code token} as a plain header, as clients send it (and the contract validator sees it). */
    public static RequestSpecification bearer(String token) {
        return given().header("Authorization", "Bearer " + token);
    }

    private static PrivateKey load() {
        try {
            return KeyUtils.decodePrivateKey(Files.readString(Path.of("dev/jwt/privateKey.pem")));
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException("the dev key pair lives in dev/jwt", e);
        }
    }
}
