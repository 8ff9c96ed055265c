package io.orderflow.clients;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The clients (clients/) consume the contract; the service never depends on them: no class of the service uses
 * theirs, and the service's POM names no client artifact (docs/clients.md).
 */
@AnalyzeClasses(packages = "io.orderflow", importOptions = ImportOption.DoNotIncludeTests.class)
class ClientsIndependenceTest {

    @ArchTest
    static final ArchRule serviceUsesNoClientClass = noClasses().should().dependOnClassesThat()
            .resideInAPackage("io.orderflow.client..")
            .because("the clients are generated from the contract the service serves, never the other way round");

    @Test
    void shouldNameNoClientArtifactInTheServicesBuild() throws IOException {
        String pom = Files.readString(Path.of("pom.xml"));
        assertFalse(pom.contains("<artifactId>orderflow-client"), "pom.xml depends on a client");
    }
}
