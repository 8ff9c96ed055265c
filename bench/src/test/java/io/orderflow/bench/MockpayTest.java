package io.orderflow.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class MockpayTest {

    /** Expected value from: printf '1700000000.{"a":1}' | openssl dgst -sha256 -hmac whsec_dev_mockpay_not_a_secret */
    @Test
    void signsLikeTheProviderTheServiceVerifies() {
        assertEquals("t=1700000000,v1=7f24f2c89fdd411383f32376b8b2447b58db38075b1dc6c2dc1960ef80803722",
                Mockpay.signature("whsec_dev_mockpay_not_a_secret", 1700000000L, "{\"a\":1}"));
    }

    @Test
    void seededIdsMatchTheSeedScript() {
        // seed.sql: '00000000-0000-4000-8000-' || lpad(to_hex(n), 12, '0')
        assertEquals("00000000-0000-4000-8000-0000000493e1", Seeded.id(300001));
    }
}
