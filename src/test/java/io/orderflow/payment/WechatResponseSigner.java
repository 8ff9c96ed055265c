package io.orderflow.payment;

import com.github.tomakehurst.wiremock.extension.ResponseTransformerV2;
import com.github.tomakehurst.wiremock.http.HttpHeader;
import com.github.tomakehurst.wiremock.http.HttpHeaders;
import com.github.tomakehurst.wiremock.http.Response;
import com.github.tomakehurst.wiremock.stubbing.ServeEvent;
import io.orderflow.payment.wechatpay.WechatFixtures;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Signs every answer to a {@code /v3/} request as WeChat Pay signs its API answers, at the moment it is sent:
 * {@code Wechatpay-Timestamp}, {@code -Nonce}, {@code -Serial} (the platform public key's id) and
 * {@code -Signature} = base64(SHA256withRSA(platform private key, "timestamp\nnonce\nbody\n")). A stub that sets
 * {@code X-Sandbox-Signature: wrong} gets a signature over another body, {@code X-Sandbox-Timestamp} an old time.
 */
public class WechatResponseSigner implements ResponseTransformerV2 {

    private final WechatFixtures wechat;

    public WechatResponseSigner(WechatFixtures wechat) {
        this.wechat = wechat;
    }

    @Override
    public Response transform(Response response, ServeEvent serveEvent) {
        if (!serveEvent.getRequest().getUrl().startsWith("/v3/")) {
            return response;
        }
        HttpHeaders given = response.getHeaders();
        String body = response.getBodyAsString() == null ? "" : response.getBodyAsString();
        long timestamp = given.getHeader("X-Sandbox-Timestamp").isPresent()
                ? Long.parseLong(given.getHeader("X-Sandbox-Timestamp").firstValue())
                : System.currentTimeMillis() / 1000;
        String nonce = UUID.randomUUID().toString().replace("-", "");
        boolean wrong = given.getHeader("X-Sandbox-Signature").isPresent();
        String signature = wechat.signAsPlatform(timestamp + "\n" + nonce + "\n" + (wrong ? body + " " : body)
                + "\n");
        List<HttpHeader> headers = new ArrayList<>(given.all());
        headers.add(new HttpHeader("Wechatpay-Timestamp", String.valueOf(timestamp)));
        headers.add(new HttpHeader("Wechatpay-Nonce", nonce));
        headers.add(new HttpHeader("Wechatpay-Serial", WechatFixtures.PLATFORM_KEY_ID));
        headers.add(new HttpHeader("Wechatpay-Signature", signature));
        headers.add(new HttpHeader("Request-ID", UUID.randomUUID().toString()));
        return Response.Builder.like(response).but().headers(new HttpHeaders(headers)).build();
    }

    @Override
    public boolean applyGlobally() {
        return true;
    }

    @Override
    public String getName() {
        return "wechatpay-response-signer";
    }
}
