package io.orderflow.webhooks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The server-side request forgery rule, with the JVM's own resolver: every internal address refused, whatever its
 * spelling; only http(s) without credentials; and a name that resolves elsewhere at delivery time (DNS rebinding) is
 * refused then, since the sender resolves again and connects to the address it checked. No refusal names the address
 * a name resolved to.
 */
class WebhookTargetsTest {

    private final WebhookTargets strict = new WebhookTargets(false, InetAddress::getAllByName);

    @ParameterizedTest
    @ValueSource(strings = {"http://127.0.0.1/hook", "http://127.1.2.3:8080/hook", "http://[::1]/hook",
            "http://169.254.169.254/latest/meta-data/", "http://10.0.0.1/hook", "http://172.16.5.4/hook",
            "http://192.168.1.1/hook", "http://0.0.0.0/hook", "http://100.64.0.1/hook", "http://[fc00::1]/hook",
            "http://[fd12:3456::1]/hook", "http://[fe80::1]/hook", "http://[::ffff:127.0.0.1]/hook",
            "http://[::ffff:169.254.169.254]/hook", "http://[64:ff9b::a00:1]/hook", "http://[2002:7f00:1::]/hook",
            "http://224.0.0.1/hook", "http://255.255.255.255/hook", "http://[::]/hook", "http://localhost/hook",
            "http://2130706433/hook", "http://0x7f000001/hook", "http://017700000001/hook"})
    void shouldRefuseEveryInternalAddress(String url) {
        assertThrows(WebhookTargets.Refused.class, () -> strict.resolve(url), url);
    }

    /** Ranges no webhook has a business in, and IPv4 literals that resolvers read differently (issue 43). */
    @ParameterizedTest
    @ValueSource(strings = {"http://[::ffff:0:7f00:1]/hook", "http://[::ffff:0:a9fe:a9fe]/hook",
            "http://[::ffff:0:808:808]/hook", "http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/hook",
            "http://[2001::1]/hook", "http://[2001:db8::1]/hook", "http://192.0.2.1/hook", "http://198.51.100.7/hook",
            "http://203.0.113.9/hook", "http://198.18.0.1/hook", "http://198.19.255.254/hook",
            "http://093.184.216.34/hook", "http://0177.0.0.1/hook", "http://010.0.0.1/hook",
            "http://127.000.000.001/hook", "http://93.184.216.034/hook", "http://0x5d.0xb8.0xd8.0x22/hook",
            "http://93.184.216.34./hook"})
    void shouldRefuseTranslatedTeredoDocumentationAndBenchmarkingRangesAndLeadingZeroOctets(String url) {
        assertThrows(WebhookTargets.Refused.class, () -> strict.resolve(url), url);
    }

    @Test
    void shouldNameNoAddressAnInternalNameResolvesTo() {
        WebhookTargets inside = new WebhookTargets(false, host -> new InetAddress[] {
            InetAddress.getByName("10.20.30.40")});
        WebhookTargets.Refused refused = assertThrows(WebhookTargets.Refused.class,
                () -> inside.resolve("http://billing.internal.example/hook"));
        assertFalse(refused.getMessage().contains("10.20.30.40"), refused.getMessage());
        assertTrue(refused.getMessage().contains("billing.internal.example"), refused.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"file:///etc/passwd", "gopher://127.0.0.1:6379/_FLUSHALL", "ftp://example.com/x",
            "http://user:secret@example.com/hook", "http://user@example.com/hook", "https:///no-host", "/relative",
            "http://exa mple.com/", "http://example.com/hook#fragment", "", "javascript:alert(1)"})
    void shouldRefuseWhatIsNotAPlainHttpUrl(String url) {
        assertThrows(WebhookTargets.Refused.class, () -> WebhookTargets.parse(url), url);
    }

    @Test
    void shouldAcceptAPublicAddressAndConnectToTheOneItChecked() throws Exception {
        WebhookTargets.Target target = strict.resolve("https://93.184.216.34:8443/hooks/in?x=1");
        assertEquals("93.184.216.34", target.address().getHostAddress());
        assertEquals(8443, target.port());
        assertTrue(target.tls());
        assertEquals("/hooks/in?x=1", target.requestUri());
    }

    @Test
    void shouldRefuseANameThatResolvesToLoopbackOnlyAtDeliveryTime() throws Exception {
        AtomicInteger lookups = new AtomicInteger();
        WebhookTargets rebinding = new WebhookTargets(false, host -> lookups.getAndIncrement() == 0
                ? new InetAddress[] {InetAddress.getByName("93.184.216.34")}
                : new InetAddress[] {InetAddress.getByName("127.0.0.1")});
        assertEquals("93.184.216.34", rebinding.resolve("http://rebind.example/hook").address().getHostAddress());
        WebhookTargets.Refused refused = assertThrows(WebhookTargets.Refused.class,
                () -> rebinding.resolve("http://rebind.example/hook"));
        assertFalse(refused.getMessage().contains("127.0.0.1"), refused.getMessage());
    }

    @Test
    void shouldRefuseANameWhenAnyOfItsAddressesIsInternal() {
        WebhookTargets mixed = new WebhookTargets(false, host -> new InetAddress[] {
            InetAddress.getByName("93.184.216.34"), InetAddress.getByName("10.1.2.3")});
        assertThrows(WebhookTargets.Refused.class, () -> mixed.resolve("http://mixed.example/hook"));
    }

    @Test
    void shouldRefuseANameThatDoesNotResolve() {
        WebhookTargets none = new WebhookTargets(false, host -> {
            throw new UnknownHostException(host);
        });
        assertThrows(WebhookTargets.Refused.class, () -> none.resolve("http://nowhere.invalid/hook"));
    }

    @Test
    void shouldLetDevelopmentUseLoopbackOnlyWhenAllowed() throws Exception {
        WebhookTargets open = new WebhookTargets(true, InetAddress::getAllByName);
        assertEquals("127.0.0.1", open.resolve("http://127.0.0.1:8080/hook").address().getHostAddress());
        for (String address : List.of("127.0.0.1", "::1", "169.254.169.254", "10.0.0.1")) {
            assertTrue(WebhookTargets.internal(InetAddress.getByName(address)), address);
        }
    }
}
