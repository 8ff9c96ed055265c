package io.orderflow.client;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/** This client's version: the project's, whose base is openapi.yaml's {@code info.version} (VersionAgreementTest). */
public final class Version {

    public static final String CLIENT = load();

    private Version() {
    }

    private static String load() {
        try (InputStream in = Version.class.getResourceAsStream("version.properties")) {
            Properties properties = new Properties();
            properties.load(in);
            return properties.getProperty("client");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
