package io.orderflow.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The clients' versions follow the service's and the contract's: this client's version is the project's (the
 * service's build passes its own as -Drevision; alone, clients/pom.xml's default must be the service's), its base
 * is openapi.yaml's {@code info.version}, and so is the npm package's version.
 */
class VersionAgreementTest {

    private static final Path ROOT = Path.of("../..");

    @Test
    void shouldCarryTheServicesVersion() throws IOException {
        assertEquals(first("(?s)<artifactId>orderflow</artifactId>\\s*<version>([^<]+)</version>", "pom.xml"),
                Version.CLIENT, "the service's version (pom.xml) and this client's");
        assertEquals(Version.CLIENT, first("<revision>([^<]+)</revision>", "clients/pom.xml"),
                "clients/pom.xml's default revision");
    }

    @Test
    void shouldCarryTheContractsVersion() throws IOException {
        String contract = first("(?m)^info:\\n(?:  .*\\n)*?  version: *'?\"?([^'\"\\n]+)", "openapi.yaml");
        assertEquals(contract, Version.CLIENT.replaceFirst("-SNAPSHOT$", ""), "openapi.yaml's info.version");
        assertEquals(contract, first("\"version\": *\"([^\"]+)\"", "clients/typescript/package.json"),
                "the npm package's version");
    }

    private static String first(String regex, String file) throws IOException {
        Matcher m = Pattern.compile(regex).matcher(Files.readString(ROOT.resolve(file)));
        if (!m.find()) {
            throw new AssertionError(file + " has no match for " + regex);
        }
        return m.group(1).trim();
    }
}
