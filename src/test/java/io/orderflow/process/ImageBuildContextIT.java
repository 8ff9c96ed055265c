package io.orderflow.process;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.orderflow.support.ItDatabase;
import io.orderflow.support.ServiceProcess;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.FileSystems;
import java.nio.file.FileVisitResult;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The container image as the Dockerfile builds it, without a Docker engine: the build context is the project as
 * {@code .dockerignore} lets it through, the build stage's COPYs put exactly their sources into a fresh folder where
 * its RUN lines run verbatim, the runtime stage's {@code COPY --from=build} assemble {@code /deployments} from that
 * build, and its ENTRYPOINT starts with its ENV against the test PostgreSQL and Redis until {@code /q/health/ready}
 * answers. A file the build needs that no COPY brings (issue 44: the top-level openapi.yaml) fails here as it fails
 * in the image: at the build or at the start.
 */
class ImageBuildContextIT {

    private static final Path DOCKERFILE = Path.of("Dockerfile");
    private static final Path DOCKERIGNORE = Path.of(".dockerignore");

    @Test
    void shouldBuildFromExactlyTheDockerBuildContextAndStartTheImagesEntryPoint() throws Exception {
        Dockerfile dockerfile = Dockerfile.parse(Files.readAllLines(DOCKERFILE));
        Path root = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "image-");
        Set<String> context = buildContext(Path.of(""), DockerIgnore.parse(Files.readAllLines(DOCKERIGNORE)));

        Dockerfile.Stage build = dockerfile.stages().get(0);
        Path buildDir = inside(root, build.workdir());
        Files.createDirectories(buildDir);
        Set<String> copied = new TreeSet<>();
        Path buildLog = ServiceProcess.logDirectory().resolve("ImageBuildContextIT-build.log");
        Files.deleteIfExists(buildLog);
        for (Dockerfile.Instruction step : build.instructions()) {
            if (step.keyword().equals("COPY")) {
                List<String> arguments = step.arguments();
                Path destination = buildDir.resolve(arguments.get(arguments.size() - 1));
                for (String source : arguments.subList(0, arguments.size() - 1)) {
                    copied.addAll(copyFromContext(context, source, destination));
                }
            } else if (step.keyword().equals("RUN")) {
                run(step.text(), buildDir, buildLog);
            }
        }
        assertEquals(context, copied, ".dockerignore lets through exactly the files the build stage COPYs");

        Dockerfile.Stage runtime = dockerfile.stages().get(dockerfile.stages().size() - 1);
        for (Dockerfile.Instruction step : runtime.instructions()) {
            if (step.keyword().equals("COPY") && step.from() != null) {
                List<String> arguments = step.arguments();
                copyBuildOutput(inside(root, arguments.get(0)), inside(root, arguments.get(1)));
            }
        }
        assertEquals(Set.of(port("quarkus.http.port"), port("quarkus.management.port")), runtime.exposed(),
                "the image exposes the API port and the management port (health, metrics)");

        List<String> entryPoint = new ArrayList<>(runtime.entryPoint());
        entryPoint.replaceAll(part -> part.replace(" /deployments/", " " + root.resolve("deployments") + "/"));
        Map<String, String> environment = new LinkedHashMap<>(runtime.environment());
        environment.put(ServiceProcess.JSON_LOGS, ServiceProcess.AS_SHIPPED);
        ItDatabase.createIfMissing();
        ServiceProcess image = ServiceProcess.start("ImageBuildContextIT", environment, entryPoint,
                inside(root, runtime.workdir()));
        try {
            image.awaitReady();
        } finally {
            image.stop();
        }
        try (Stream<Path> walk = Files.walk(root)) {
            walk.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        }
    }

    /** The files of the build context, relative to the project folder, as .dockerignore lets them through. */
    private static Set<String> buildContext(Path project, DockerIgnore ignore) throws IOException {
        Path top = project.toAbsolutePath();
        Set<String> files = new TreeSet<>();
        Files.walkFileTree(top, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path folder, BasicFileAttributes attributes) {
                String relative = top.relativize(folder).toString();
                // target/ and .git/ are large and never in the context: not walked at all
                return relative.isEmpty() || ignore.mayInclude(relative) ? FileVisitResult.CONTINUE
                        : FileVisitResult.SKIP_SUBTREE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
                String relative = top.relativize(file).toString();
                if (attributes.isRegularFile() && !ignore.excludes(relative)) {
                    files.add(relative);
                }
                return FileVisitResult.CONTINUE;
            }
        });
        return files;
    }

    /** COPY of a file or a folder of the context: what it copied, by their paths in the context. */
    private static Set<String> copyFromContext(Set<String> context, String source, Path destination)
            throws IOException {
        String prefix = source.replaceAll("/+$", "");
        Set<String> copied = new TreeSet<>();
        for (String file : context) {
            Path target;
            if (file.equals(prefix)) {
                target = destination.toString().endsWith("/") || Files.isDirectory(destination)
                        ? destination.resolve(Path.of(file).getFileName()) : destination;
            } else if (file.startsWith(prefix + "/")) {
                target = destination.resolve(file.substring(prefix.length() + 1));
            } else {
                continue;
            }
            Files.createDirectories(target.getParent());
            Files.copy(Path.of(file), target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.COPY_ATTRIBUTES);
            copied.add(file);
        }
        assertFalse(copied.isEmpty(), "COPY " + source + ": the build context has no such file or folder");
        return copied;
    }

    /** {@code COPY --from=build /build/target/quarkus-app/*.jar /deployments/}: a folder, a file or a glob. */
    private static void copyBuildOutput(Path source, Path destination) throws IOException {
        Files.createDirectories(destination);
        String name = source.getFileName().toString();
        if (name.contains("*")) {
            PathMatcher glob = FileSystems.getDefault().getPathMatcher("glob:" + name);
            try (Stream<Path> files = Files.list(source.getParent())) {
                for (Path file : files.filter(f -> glob.matches(f.getFileName())).toList()) {
                    Files.copy(file, destination.resolve(file.getFileName()), StandardCopyOption.REPLACE_EXISTING);
                }
            }
            return;
        }
        assertTrue(Files.isDirectory(source), "the build made no " + source);
        try (Stream<Path> walk = Files.walk(source)) {
            for (Path file : walk.filter(Files::isRegularFile).toList()) {
                Path target = destination.resolve(source.relativize(file).toString());
                Files.createDirectories(target.getParent());
                Files.copy(file, target, StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }

    /** A RUN line, as the image's shell runs it, in the build stage's WORKDIR; its output to {@code log}. */
    private static void run(String command, Path directory, Path log) throws Exception {
        Files.writeString(log, "$ " + command + "\n", StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
        Process process = new ProcessBuilder("sh", "-c", command).directory(directory.toFile())
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        if (!process.waitFor(20, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            throw new AssertionError("RUN " + command + " did not finish within 20 minutes (" + log + ")");
        }
        assertEquals(0, process.exitValue(), "RUN " + command + " failed:\n" + tail(log));
    }

    private static String tail(Path log) throws IOException {
        List<String> lines = Files.readAllLines(log);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    }

    /** An absolute path of the image's filesystem, under {@code root}. */
    private static Path inside(Path root, String imagePath) {
        return root.resolve(imagePath.replaceFirst("^/+", ""));
    }

    private static int port(String property) throws IOException {
        Properties properties = new Properties();
        try (InputStream in = Files.newInputStream(Path.of("src/main/resources/application.properties"))) {
            properties.load(in);
        }
        return Integer.parseInt(properties.getProperty(property));
    }
}
