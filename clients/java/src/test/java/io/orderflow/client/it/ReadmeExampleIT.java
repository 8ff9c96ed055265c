package io.orderflow.client.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.stream.Collectors;
import java.util.regex.Pattern;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's Java example (fenced {@code ```java example}) compiled as written, inside a method given {@code base}
 * and {@code token}, and run against the packaged service: it prints what the README says it prints.
 */
class ReadmeExampleIT {

    private static final Pattern EXAMPLE = Pattern.compile("(?ms)^```java example\\n(.*?)^```$");

    @TempDir
    Path folder;

    @Test
    void shouldRunTheReadmesJavaExampleAsWritten() throws Exception {
        TheService.assumeRunning();
        Matcher example = EXAMPLE.matcher(Files.readString(Path.of("../../README.md")));
        assertTrue(example.find(), "the README has a ```java example block");
        Path source = folder.resolve("ReadmeExample.java");
        Files.writeString(source, "import io.orderflow.client.*;\nimport io.orderflow.client.generated.model.*;\n"
                + "import java.net.URI;\n\npublic class ReadmeExample {\n"
                + "    public static void run(String base, String token) throws Exception {\n" + example.group(1)
                + "    }\n}\n");
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        int compiled = javac.run(null, errors, errors, "-classpath", classpath, "-d", folder.toString(),
                source.toString());
        assertEquals(0, compiled, errors.toString(StandardCharsets.UTF_8));

        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream console = System.out;
        try (URLClassLoader loader = new URLClassLoader(new java.net.URL[] {folder.toUri().toURL()},
                getClass().getClassLoader())) {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            loader.loadClass("ReadmeExample").getMethod("run", String.class, String.class)
                    .invoke(null, TheService.URL, TheService.CUSTOMER_TOKEN);
        } finally {
            System.setOut(console);
        }
        assertEquals(List.of("412 https://orderflow.dev/problems/version-mismatch 1"),
                out.toString(StandardCharsets.UTF_8).lines().collect(Collectors.toList()));
    }
}
