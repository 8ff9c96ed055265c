package io.orderflow.common;

import io.smallrye.jwt.auth.principal.JWTCallerPrincipal;
import io.smallrye.jwt.auth.principal.ParseException;
import java.util.Set;

/**
 * What a verified bearer token must also say before the service acts on it. The JWT library checks the signature,
 * issuer and {@code exp}; these rules close what it leaves open:
 * <ul>
 * <li>{@code sub} is the caller's identity (a customer's id), so every token carries a non-blank one without
 * control characters. The library would otherwise name the principal after {@code upn} or
 * {@code preferred_username}, which an identity provider may let users choose.</li>
 * <li>{@code groups} holds at most one of the roles: a token that is both customer and operator is ambiguous (is its
 * subject a customer id?) and is refused rather than guessed at.</li>
 * <li>{@code iat}, when present, is not later than now plus the clock-skew allowance: a token "issued in the future"
 * comes from a wrong clock or was minted ahead of time.</li>
 * </ul>
 * A token breaking a rule is not authenticated (401).
 */
final class TokenPolicy {

    private TokenPolicy() {
    }

    static void check(JWTCallerPrincipal token, long nowSeconds, long skewSeconds) throws ParseException {
        String subject = token.getSubject();
        if (subject == null || subject.isBlank() || hasControlCharacter(subject)) {
            throw new ParseException("the token has no usable subject (sub)");
        }
        Set<String> groups = token.getGroups();
        if (groups != null && groups.contains(Callers.CUSTOMER) && groups.contains(Callers.OPERATOR)) {
            throw new ParseException("the token is both customer and operator");
        }
        Object issuedAt = token.getClaim("iat");
        if (issuedAt instanceof Number iat && iat.longValue() > nowSeconds + skewSeconds) {
            throw new ParseException("the token was issued in the future (iat)");
        }
    }

    private static boolean hasControlCharacter(String value) {
        return value.chars().anyMatch(Character::isISOControl);
    }
}
