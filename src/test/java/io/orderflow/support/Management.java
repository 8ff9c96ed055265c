package io.orderflow.support;

import io.restassured.RestAssured;
import io.restassured.specification.RequestSpecification;
import java.net.URI;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * The management interface of the service under test (health and metrics; quarkus.management.*), which listens on a
 * port of its own: Quarkus publishes its URL as {@code test.management.url} once it listens
 * (quarkus.management.test-port=0: a free port, as for HTTP).
 */
public final class Management {

    private Management() {
    }

    /** A request to the management interface, e.g. {@code Management.given().get("/q/metrics")}. */
    public static RequestSpecification given() {
        return RestAssured.given().baseUri(url()).port(-1);
    }

    /** Scheme, host and port only: test.management.url ends in the management root path (/q), which paths repeat. */
    public static String url() {
        URI url = URI.create(ConfigProvider.getConfig().getValue("test.management.url", String.class));
        return url.getScheme() + "://" + url.getHost() + ":" + url.getPort();
    }

    /** The Prometheus exposition text as the service exports it now. */
    public static String metrics() {
        return given().get("/q/metrics").then().statusCode(200).extract().asString();
    }
}
