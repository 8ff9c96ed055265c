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

/**
 * Where a webhook may be sent. A webhook URL is user input aimed from inside the cluster (server-side request
 * forgery), so it must be http(s), carry no credentials, and every address its host resolves to must be public:
 * never loopback, link-local (cloud metadata at 169.254.169.254), private, unique-local, shared, unspecified,
 * multicast or reserved. The rule is applied at registration and again, after a fresh DNS lookup, before every
 * delivery, which then connects to the very address checked: a name that later resolves elsewhere (DNS rebinding)
 * is caught. {@code events.webhooks.allow-private-targets} lifts the address rule, for development and tests only.
 */
@ApplicationScoped
public class WebhookTargets {

    static final int MAX_URL = 2048;

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
                    throw new Refused("url's host " + host + " resolves to " + address.getHostAddress()
                            + ", an address inside a private, loopback, link-local or reserved range");
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
                || (a0 == 198 && (a1 & 0xfe) == 18); // benchmarking
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
