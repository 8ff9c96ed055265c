package io.orderflow.payment.wechatpay;

import com.fasterxml.jackson.databind.JsonNode;
import com.wechat.pay.java.core.RSAPublicKeyConfig;
import com.wechat.pay.java.core.exception.HttpException;
import com.wechat.pay.java.core.exception.MalformedMessageException;
import com.wechat.pay.java.core.exception.ServiceException;
import com.wechat.pay.java.core.exception.ValidationException;
import com.wechat.pay.java.core.http.Constant;
import com.wechat.pay.java.core.http.DefaultHttpClientBuilder;
import com.wechat.pay.java.core.http.HttpClient;
import com.wechat.pay.java.core.http.HttpHeaders;
import com.wechat.pay.java.core.http.JsonResponseBody;
import com.wechat.pay.java.core.http.MediaType;
import com.wechat.pay.java.core.http.ResponseBody;
import com.wechat.pay.java.core.http.UrlEncoder;
import com.wechat.pay.java.core.util.GsonUtil;
import com.wechat.pay.java.service.payments.nativepay.NativePayService;
import com.wechat.pay.java.service.payments.nativepay.model.Amount;
import com.wechat.pay.java.service.payments.nativepay.model.CloseOrderRequest;
import com.wechat.pay.java.service.payments.nativepay.model.PrepayRequest;
import com.wechat.pay.java.service.refund.RefundService;
import com.wechat.pay.java.service.refund.model.AmountReq;
import com.wechat.pay.java.service.refund.model.CreateRequest;
import io.orderflow.payment.spi.PaymentRequest;
import io.orderflow.payment.spi.ProviderCalls;
import io.orderflow.payment.spi.ProviderDeclined;
import io.orderflow.payment.spi.ProviderJson;
import io.orderflow.payment.spi.ProviderOutcome;
import io.orderflow.payment.spi.ProviderUnavailable;
import io.orderflow.payment.spi.RefundRequest;
import io.smallrye.mutiny.Uni;
import java.net.ConnectException;
import java.net.URI;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import okhttp3.HttpUrl;
import okhttp3.Interceptor;
import okhttp3.OkHttpClient;
import okhttp3.Request;

/**
 * WeChat Pay's API through wechatpay-java: every request signed with the merchant key, every answer's signature
 * and timestamp verified with the platform public key, each call on a worker thread. The SDK's services call the
 * production host; an OkHttp interceptor sends them to {@code api-base} instead (the signature covers only the
 * path, so it is unchanged). Queries go through the SDK's client but are read as raw JSON, strictly.
 */
final class WechatPayApi {

    static final String PRODUCTION = "https://api.mch.weixin.qq.com";
    /**
     * WeChat's error codes that refuse us, not the request: the signature (a wrong merchant key or serial), the
     * merchant's rights or identity, an object it does not know (RESOURCE_NOT_EXISTS, 404).
     */
    private static final Set<String> CANNOT_ASK = Set.of("SIGN_ERROR", "NO_AUTH", "MCH_NOT_EXISTS",
            "APPID_MCHID_NOT_MATCH", "MCHID_NOT_MATCH", "RESOURCE_NOT_EXISTS", "ORDER_NOT_EXIST", "REQUEST_BLOCKED");
    /** WeChat's error codes that mean "try again with the same parameters". */
    private static final Set<String> RETRYABLE = Set.of("SYSTEMERROR", "SYSTEM_ERROR", "BANKERROR",
            "FREQUENCY_LIMITED", "FREQUENCY_LIMIT_EXCEED");

    private final WechatPayConfig config;
    private final HttpClient http;
    private final NativePayService nativePay;
    private final RefundService refunds;

    WechatPayApi(WechatPayConfig config) {
        this.config = config;
        RSAPublicKeyConfig sdkConfig = new RSAPublicKeyConfig.Builder()
                .merchantId(config.merchantId().orElseThrow())
                .privateKeyFromPath(config.merchantPrivateKey().orElseThrow())
                .publicKeyFromPath(config.platformPublicKey().orElseThrow())
                .publicKeyId(config.platformPublicKeyId().orElseThrow())
                .merchantSerialNumber(config.merchantSerial().orElseThrow())
                .apiV3Key(config.apiV3Key().orElseThrow()).build();
        long timeout = config.httpTimeout().toMillis();
        OkHttpClient.Builder okHttp = new OkHttpClient.Builder().retryOnConnectionFailure(false)
                .connectTimeout(timeout, TimeUnit.MILLISECONDS).readTimeout(timeout, TimeUnit.MILLISECONDS)
                .writeTimeout(timeout, TimeUnit.MILLISECONDS);
        String base = config.apiBase().toString().replaceAll("/$", "");
        if (!base.equals(PRODUCTION)) {
            okHttp.addInterceptor(toBase(base));
        }
        this.http = new DefaultHttpClientBuilder().config(sdkConfig).okHttpClient(okHttp.build()).build();
        this.nativePay = new NativePayService.Builder().httpClient(http).build();
        this.refunds = new RefundService.Builder().httpClient(http).build();
    }

    /** Rewrites the SDK's production URLs onto {@code base}, keeping path and query. */
    static Interceptor toBase(String base) {
        return chain -> {
            Request request = chain.request();
            String query = request.url().encodedQuery();
            HttpUrl moved = HttpUrl.get(base + request.url().encodedPath() + (query == null ? "" : "?" + query));
            return chain.proceed(request.newBuilder().url(moved).build());
        };
    }

    /** POST /v3/pay/transactions/native; out_trade_no is the attempt, so a repeat finds the same order. */
    Uni<String> prepay(PaymentRequest request, String outTradeNo) {
        if (request.amount() > Integer.MAX_VALUE) {
            return Uni.createFrom().failure(new ProviderDeclined("amount-too-large",
                    "WeChat Pay takes at most " + Integer.MAX_VALUE + " fen"));
        }
        PrepayRequest prepay = new PrepayRequest();
        prepay.setAppid(config.appId().orElseThrow());
        prepay.setMchid(config.merchantId().orElseThrow());
        prepay.setDescription(request.description());
        prepay.setOutTradeNo(outTradeNo);
        prepay.setNotifyUrl(config.notifyUrl().orElseThrow());
        Amount amount = new Amount();
        amount.setTotal((int) request.amount());
        amount.setCurrency(request.currency());
        prepay.setAmount(amount);
        return call(() -> nativePay.prepay(prepay).getCodeUrl());
    }

    /** GET /v3/pay/transactions/out-trade-no/{out_trade_no}?mchid=... */
    Uni<JsonNode> queryTransaction(String outTradeNo) {
        return get("/v3/pay/transactions/out-trade-no/" + UrlEncoder.urlEncode(outTradeNo) + "?mchid="
                + UrlEncoder.urlEncode(config.merchantId().orElseThrow()));
    }

    /** POST /v3/pay/transactions/out-trade-no/{out_trade_no}/close (204). */
    Uni<Boolean> close(String outTradeNo) {
        CloseOrderRequest close = new CloseOrderRequest();
        close.setMchid(config.merchantId().orElseThrow());
        close.setOutTradeNo(outTradeNo);
        return call(() -> {
            nativePay.closeOrder(close);
            return true;
        });
    }

    /** POST /v3/refund/domestic/refunds, by transaction_id; out_refund_no is the command, so it refunds once. */
    Uni<JsonNode> refund(RefundRequest request, String outRefundNo, long total) {
        CreateRequest create = new CreateRequest();
        create.setTransactionId(request.captureId());
        create.setOutRefundNo(outRefundNo);
        create.setNotifyUrl(config.notifyUrl().orElseThrow());
        AmountReq amount = new AmountReq();
        amount.setRefund(request.amount());
        amount.setTotal(total);
        amount.setCurrency(request.currency());
        create.setAmount(amount);
        return call(() -> ProviderJson.tree(GsonUtil.getGson()
                .toJson(refunds.create(create))));
    }

    /** GET /v3/refund/domestic/refunds/{out_refund_no} */
    Uni<JsonNode> queryRefund(String outRefundNo) {
        return get("/v3/refund/domestic/refunds/" + UrlEncoder.urlEncode(outRefundNo));
    }

    private Uni<JsonNode> get(String path) {
        HttpHeaders headers = new HttpHeaders();
        headers.addHeader(Constant.ACCEPT, MediaType.APPLICATION_JSON.getValue());
        String url = URI.create(PRODUCTION + path).toString();
        return call(() -> {
            ResponseBody body = http.get(headers, url, Object.class).getBody();
            return ProviderJson.tree(body instanceof JsonResponseBody json ? json.getBody() : "");
        });
    }

    private static <T> Uni<T> call(Callable<T> request) {
        return ProviderCalls.onWorker(() -> {
            try {
                return request.call();
            } catch (ServiceException e) {
                throw classify(e.getHttpStatusCode(), e.getErrorCode(), e.getErrorMessage());
            } catch (HttpException e) {
                throw new ProviderUnavailable("connection", "WeChat Pay could not be reached or did not answer",
                        !(e.getCause() instanceof ConnectException));
            } catch (ValidationException e) {
                throw new ProviderUnavailable("response-signature",
                        "WeChat Pay's answer did not verify with the platform public key (or was stale)", true);
            } catch (MalformedMessageException e) {
                throw new ProviderUnavailable("malformed-response", "WeChat Pay's answer could not be read", true);
            }
        });
    }

    /** Which WeChat errors a retry with the same out_trade_no / out_refund_no may cure. */
    static RuntimeException classify(int status, String code, String message) {
        String detail = "WeChat Pay: " + status + " " + code + " " + message;
        if (status == 429 || "FREQUENCY_LIMITED".equals(code) || "FREQUENCY_LIMIT_EXCEED".equals(code)) {
            return new ProviderUnavailable(code, detail, false);
        }
        if (status >= 500 || RETRYABLE.contains(code)) {
            return new ProviderUnavailable(code, detail, true);
        }
        String named = code == null ? "http_" + status : code;
        if (status == 401 || status == 404 || CANNOT_ASK.contains(code)) {
            // our signature or merchant refused, or an order of ours WeChat does not know (another merchant id):
            // WeChat did not judge the request, we could not ask
            return new ProviderDeclined(named, detail, ProviderOutcome.Refusal.CANNOT_ASK);
        }
        // the request itself refused (INVALID_REQUEST: more than is left to refund; NOT_ENOUGH: the merchant
        // account cannot pay it; USER_ACCOUNT_ABNORMAL...): final
        return new ProviderDeclined(named, detail);
    }
}
