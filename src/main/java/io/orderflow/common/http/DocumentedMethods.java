package io.orderflow.common.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.orderflow.common.problem.Problem;
import io.orderflow.common.problem.ProblemMapper;
import io.orderflow.common.problem.ProblemType;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The API answers only the methods its contract lists: a path of openapi.yaml (the document the service serves as
 * /q/openapi) asked with any other method — HEAD and OPTIONS included, which Quarkus REST would otherwise answer
 * itself with 200, and there is no CORS to serve — is a {@code 405 method-not-allowed} problem whose {@code Allow}
 * header names the methods listed (RFC 9110 §15.5.6; Quarkus REST's own 405 names none). Read from the contract, so
 * that what the service answers and what it documents cannot drift apart. Paths the contract does not list go on
 * (a 404, Quarkus's own endpoints under /q/).
 */
@ApplicationScoped
public class DocumentedMethods {

    /** After the edge's limits, ahead of authentication and REST. */
    private static final int ORDER = Integer.MIN_VALUE + 102;
    private static final Set<String> METHODS = Set.of("get", "put", "post", "delete", "patch", "head", "options",
            "trace");

    /** One path of the contract: its template as a pattern, the methods listed, and their Allow header. */
    private record DocumentedPath(String template, Pattern path, Set<String> methods, String allow) {
    }

    /**
     * The contract's paths by their number of slashes: a template's parameter never spans a slash, so a request's
     * path is tried only against the few templates of its own depth (every request passes here).
     */
    private final Map<Long, List<DocumentedPath>> pathsByDepth;
    private final ProblemMapper problems;

    public DocumentedMethods(ProblemMapper problems) {
        this.problems = problems;
        this.pathsByDepth = read("META-INF/openapi.yaml").stream()
                .collect(Collectors.groupingBy(documented -> depth(documented.template()), Collectors.toList()));
    }

    void install(@Observes Router router) {
        router.route().order(ORDER).handler(this::check);
    }

    private void check(RoutingContext context) {
        String path = context.request().path();
        String method = context.request().method().name();
        for (DocumentedPath documented : pathsByDepth.getOrDefault(depth(path), List.of())) {
            if (documented.path().matcher(path).matches()) {
                if (documented.methods().contains(method)) {
                    context.next();
                } else {
                    problems.toReply(Problem.of(ProblemType.METHOD_NOT_ALLOWED, "This path takes "
                            + documented.allow() + " only"), null).withHeader("Allow", documented.allow())
                            .endClosing(context.request());
                }
                return;
            }
        }
        context.next();
    }

    private static List<DocumentedPath> read(String resource) {
        try (InputStream in = DocumentedMethods.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("The contract " + resource + " is not on the class path");
            }
            List<DocumentedPath> paths = new ArrayList<>();
            new ObjectMapper(new YAMLFactory()).readTree(in).path("paths").fields().forEachRemaining(entry -> {
                Set<String> methods = new TreeSet<>();
                entry.getValue().fieldNames().forEachRemaining(name -> {
                    if (METHODS.contains(name)) {
                        methods.add(name.toUpperCase(Locale.ROOT));
                    }
                });
                paths.add(new DocumentedPath(entry.getKey(), template(entry.getKey()), Set.copyOf(methods),
                        String.join(", ", methods)));
            });
            return List.copyOf(paths);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static long depth(String path) {
        return path.chars().filter(c -> c == '/').count();
    }

    /** {@code /orders/{id}/refunds} → a pattern where each {@code {name}} stands for one path segment. */
    private static Pattern template(String template) {
        StringBuilder regex = new StringBuilder();
        for (String part : template.split("(?=\\{)|(?<=\\})")) {
            regex.append(part.startsWith("{") ? "[^/]+" : Pattern.quote(part));
        }
        return Pattern.compile(regex.toString());
    }
}
