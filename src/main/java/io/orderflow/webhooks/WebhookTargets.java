package io.orderflow.webhooks;

import io.orderflow.events.EventsConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Where a webhook may be sent. A webhook URL is user input aimed from inside the cluster (server-side request
 * forgery), so it must be http(s), carry no credentials, and every address its host resolves to must be public:
 * never loopback, link-local (cloud metadata at 169.254.169.254), private, unique-local, shared, unspecified,
 * multicast, documentation, benchmarking, IPv4-translated, Teredo or reserved; and an IPv4 literal must be spelled in
 * plain dotted decimal (a leading zero is octal to some resolvers and decimal to others). A refusal never names the
 * address a name resolved to. The rule is applied at registration and again, after a fresh DNS lookup, before every
 * delivery, which then connects to the very address checked: a name that later resolves elsewhere (DNS rebinding)
 * is caught. {@code events.webhooks.allow-private-targets} lifts the address rule, for development and tests only.
 */
@ApplicationScoped
public class WebhookTargets {

    static final int MAX_URL = 2048;

    /** A host made of numbers alone (decimal, octal, hex; one to four parts): how resolvers read IPv4 literals. */
    private static final Pattern NUMERIC_HOST = Pattern.compile("(0x[0-9a-f]*|[0-9]+)(\\.(0x[0-9a-f]*|[0-9]+))*\\.?",
            Pattern.CASE_INSENSITIVE);
    /** The one spelling of an IPv4 address every resolver reads alike: four decimal octets, no leading zero. */
    private static final Pattern DOTTED_DECIMAL = Pattern.compile(
            "(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])(\\.(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])){3}");

    /** Looks a host up; the JVM's resolver unless a test names another. */
    interface Resolver {
        InetAddress[] resolve(String host) throws UnknownHostException;
    }

    /** A URL judged deliverable: what to connect to ({@code address}) and what to ask for there. */
    record Target(String host, int port, boolean tls, String requestUri, InetAddress address) {
    }

    /** Why a URL may not be used; its message is safe to show to the operator who sent it. */
    static final class Refused extends Exception {
        Refused(String message) {
            super(message, null, false, false);
        }
    }

    private final boolean allowPrivate;
    private final Resolver resolver;

    @Inject
    public WebhookTargets(EventsConfig config) {
        this(config.webhooks().allowPrivateTargets(), InetAddress::getAllByName);
    }

    WebhookTargets(boolean allowPrivate, Resolver resolver) {
        this.allowPrivate = allowPrivate;
        this.resolver = resolver;
    }

    /** The URL's form alone: scheme, credentials, host, port. No lookup. */
    static URI parse(String url) throws Refused {
        if (url == null || url.isBlank() || url.length() > MAX_URL) {
            throw new Refused("url must be an absolute http or https URL of at most " + MAX_URL + " characters");
        }
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            throw new Refused("url is not a valid URL");
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            throw new Refused("url must use http or https");
        }
        if (uri.getRawUserInfo() != null) {
            throw new Refused("url must not carry credentials");
        }
        if (uri.getHost() == null || uri.getHost().isEmpty()) {
            throw new Refused("url must name a host");
        }
        if (uri.getRawFragment() != null) {
            throw new Refused("url must not carry a fragment");
        }
        String host = uri.getHost();
        if (NUMERIC_HOST.matcher(host).matches() && !DOTTED_DECIMAL.matcher(host).matches()) {
            // 0177.0.0.1, 010.0.0.1, 0x7f.1, 2130706433: the JVM reads leading zeros as decimal, the C library and
            // curl as octal, so such a host means one address here and another to anything in between
            throw new Refused("url's host must be a name or an IPv4 address in dotted decimal without leading zeros");
        }
        return uri;
    }

    /** Looks the URL's host up and checks every address it resolves to. Blocking: call off the event loop. */
    Target resolve(String url) throws Refused {
        URI uri = parse(url);
        boolean tls = uri.getScheme().equalsIgnoreCase("https");
        String host = unbracketed(uri.getHost());
        InetAddress[] addresses;
        try {
            addresses = resolver.resolve(host);
        } catch (UnknownHostException e) {
            throw new Refused("url's host " + host + " does not resolve");
        }
        if (addresses.length == 0) {
            throw new Refused("url's host " + host + " does not resolve");
        }
        if (!allowPrivate) {
            for (InetAddress address : addresses) {
                if (internal(address)) {
                    // the address is not named: what an internal name resolves to is no one's business outside
                    throw new Refused("url's host " + host + " resolves to an address inside a private, loopback,"
                            + " link-local, documentation or reserved range");
                }
            }
        }
        int port = uri.getPort() != -1 ? uri.getPort() : tls ? 443 : 80;
        String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
        String requestUri = uri.getRawQuery() == null ? path : path + "?" + uri.getRawQuery();
        return new Target(host, port, tls, requestUri, addresses[0]);
    }

    /** Whether {@code address} lies where no webhook may go. */
    static boolean internal(InetAddress address) {
        if (address.isLoopbackAddress() || address.isLinkLocalAddress() || address.isSiteLocalAddress()
                || address.isAnyLocalAddress() || address.isMulticastAddress()) {
            return true;
        }
        byte[] b = address.getAddress();
        if (address instanceof Inet4Address) {
            return internalV4(b);
        }
        int first = b[0] & 0xff;
        if ((first & 0xfe) == 0xfc) {
            return true; // fc00::/7, unique local
        }
        if (prefix(b, new int[] {0x20, 0x01, 0x00, 0x00}) || prefix(b, new int[] {0x20, 0x01, 0x0d, 0xb8})) {
            return true; // 2001::/32, Teredo (an IPv4 server and client inside); 2001:db8::/32, documentation
        }
        if (allZero(b, 0, 8) && (b[8] & 0xff) == 0xff && (b[9] & 0xff) == 0xff && allZero(b, 10, 12)) {
            return true; // ::ffff:0:a.b.c.d, IPv4-translated (SIIT): no address of the public internet
        }
        if (first == 0x20 && (b[1] & 0xff) == 0x02) {
            return internalV4(Arrays.copyOfRange(b, 2, 6)); // 2002::/16, 6to4 around an IPv4 address
        }
        if (prefix(b, new int[] {0x00, 0x64, 0xff, 0x9b}) || allZero(b, 0, 12)) {
            return internalV4(Arrays.copyOfRange(b, 12, 16)); // 64:ff9b::/96 (NAT64), ::a.b.c.d (compatible)
        }
        return false;
    }

    private static boolean internalV4(byte[] b) {
        int a0 = b[0] & 0xff;
        int a1 = b[1] & 0xff;
        return a0 == 0 || a0 == 10 || a0 == 127 || a0 >= 224 // this network, private, loopback, multicast, reserved
                || (a0 == 100 && (a1 & 0xc0) == 64) // 100.64/10, shared address space
                || (a0 == 169 && a1 == 254) // link-local, cloud metadata
                || (a0 == 172 && (a1 & 0xf0) == 16) || (a0 == 192 && a1 == 168) // private
                || (a0 == 192 && a1 == 0 && (b[2] & 0xff) == 0) // IETF protocol assignments
                || (a0 == 192 && a1 == 0 && (b[2] & 0xff) == 2) // documentation, TEST-NET-1
                || (a0 == 198 && a1 == 51 && (b[2] & 0xff) == 100) // documentation, TEST-NET-2
                || (a0 == 203 && a1 == 0 && (b[2] & 0xff) == 113) // documentation, TEST-NET-3
                || (a0 == 198 && (a1 & 0xfe) == 18); // benchmarking, 198.18.0.0/15
    }

    private static boolean prefix(byte[] b, int[] bytes) {
        for (int i = 0; i < bytes.length; i++) {
            if ((b[i] & 0xff) != bytes[i]) {
                return false;
            }
        }
        return true;
    }

    private static boolean allZero(byte[] b, int from, int to) {
        for (int i = from; i < to; i++) {
            if (b[i] != 0) {
                return false;
            }
        }
        return true;
    }

    private static String unbracketed(String host) {
        return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
    }
}
