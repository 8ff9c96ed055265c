package io.orderflow.payment;

import static io.restassured.RestAssured.given;

import io.orderflow.payment.workers.RefundWorker;
import io.orderflow.support.Sql;
import io.quarkus.vertx.VertxContextSupport;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.UUID;

/** What the sandboxed payment tests do alike: a pass of the worker over one order's commands, a WeChat notification. */
final class SandboxCalls {

    private SandboxCalls() {
    }

    /**
     * One pass of the worker, which serves every due command of the shared test database: other orders' commands
     * (whose provider stubs are gone, so each would wait out its call timeout) are put off first, so that the pass
     * reaches this order's. Run on a Vert.x context, as the scheduler runs it; the number of commands handled.
     */
    static int runWorker(RefundWorker worker, String orderId) {
        Sql.update("update provider_commands set next_at = now() + interval '1 day' where state in ('PENDING', 'SENT')"
                + " and order_id <> ?", UUID.fromString(orderId));
        try {
            return VertxContextSupport.subscribeAndAwait(() -> worker.runDue());
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    /** A WeChat Pay notification of {@code eventType} as WeChat signs and encrypts it: acknowledged 204. */
    static void wechat(PaymentSandbox.Sandbox sandbox, String notificationId, String eventType, String summary,
            String resource) {
        String body = sandbox.wechat().notification(notificationId, eventType, summary, resource);
        given().contentType("application/json").headers(sandbox.wechat().headers(body, Instant.now().getEpochSecond()))
                .body(body.getBytes(StandardCharsets.UTF_8)).post("/payments/wechatpay/callbacks").then()
                .statusCode(204);
    }
}
