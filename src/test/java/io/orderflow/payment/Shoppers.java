package io.orderflow.payment;

import static io.orderflow.support.OrderMother.newKey;

import io.orderflow.support.Auth;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import java.util.List;
import java.util.Map;

/** A shopper's own calls, for the payment tests: a CNY order (WeChat Pay's currency) and PAY with a provider. */
public final class Shoppers {

    private Shoppers() {
    }

    /** A CNY order of 25.00 by {@code customer}; its id. */
    public static String yuanOrder(String customer) {
        return Auth.customer(customer).contentType(ContentType.JSON).header("Idempotency-Key", newKey())
                .body(Map.of("customerId", customer, "currency", "CNY",
                        "items", List.of(Map.of("sku", "SKU-1", "quantity", 1, "unitPrice", 2500))))
                .post("/orders").then().statusCode(201).extract().path("id");
    }

    /** PAY with {@code provider}, as the order's customer, with a new Idempotency-Key. */
    public static Response pay(String customer, String orderId, String provider) {
        return Auth.customer(customer).contentType(ContentType.JSON).header("Idempotency-Key", newKey())
                .body(Map.of("provider", provider)).post("/orders/" + orderId + "/pay");
    }

    /** PAY with WeChat Pay that started an attempt: its {@code out_trade_no} (the attempt id without dashes). */
    public static String payWithWechat(String customer, String orderId) {
        return pay(customer, orderId, "wechatpay").then().statusCode(200).extract()
                .path("payment.providerReference");
    }
}
