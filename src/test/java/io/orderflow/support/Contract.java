package io.orderflow.support;

import com.atlassian.oai.validator.OpenApiInteractionValidator;
import com.atlassian.oai.validator.model.ApiOperation;
import com.atlassian.oai.validator.model.Body;
import com.atlassian.oai.validator.model.Request;
import com.atlassian.oai.validator.model.Response;
import com.atlassian.oai.validator.model.SimpleRequest;
import com.atlassian.oai.validator.model.SimpleResponse;
import com.atlassian.oai.validator.report.LevelResolver;
import com.atlassian.oai.validator.report.SimpleValidationReportFormat;
import com.atlassian.oai.validator.report.ValidationReport;
import com.atlassian.oai.validator.restassured.RestAssuredRequest;
import com.atlassian.oai.validator.restassured.RestAssuredResponse;
import io.restassured.RestAssured;
import io.restassured.filter.Filter;
import io.restassured.filter.FilterContext;
import io.restassured.filter.OrderedFilter;
import io.restassured.specification.FilterableRequestSpecification;
import io.restassured.specification.FilterableResponseSpecification;
import io.swagger.v3.oas.models.headers.Header;
import io.swagger.v3.oas.models.responses.ApiResponse;
import java.net.URLDecoder;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * openapi.yaml, enforced: every RESTAssured request and response of every test is validated against it (Atlassian's
 * swagger-request-validator), so an undocumented status, header or field — or a request the contract does not
 * describe — fails the test that made it. Installed once for all {@code @QuarkusTest}s by {@link ContractValidation}.
 *
 * <p>A hostile-input test that sends a deliberately invalid request marks it with {@link #invalidRequest()}: the
 * request is then not validated, its response still is. Quarkus's own endpoints under {@code /q/} (health, metrics,
 * the OpenAPI document itself) are not part of the API contract.
 *
 * <p>Exchanges RESTAssured cannot make (a chunked body, a request without the security header the contract demands,
 * the process-level tests' and the provider simulator's {@link java.net.http.HttpClient} calls) go through
 * {@link #asDocumented} or, for a deliberately invalid request, {@link #asDocumentedResponse}.
 */
public final class Contract {

    /**
     * Headers that say how an answer travels, not what it means: the only ones a response may carry undocumented.
     * Every other header present in a response must be documented for its status (ETag, Location, Retry-After,
     * Idempotent-Replayed, Payment-Outcome, Cache-Control, WWW-Authenticate, Allow...).
     */
    static final Set<String> TRANSPORT_HEADERS = Set.of("content-type", "content-length", "transfer-encoding",
            "connection", "keep-alive", "date");
    /** The headers the service gives a meaning to, checked in a response whose header names are not known. */
    static final List<String> API_HEADERS = List.of("Location", "ETag", "Idempotent-Replayed", "Retry-After",
            "WWW-Authenticate", "Payment-Outcome", "Cache-Control", "Allow");
    /**
     * A path the contract does not list is answered {@code 404 not-found} (openapi.yaml's description says so): such
     * a 404 is validated as this documented one is.
     */
    private static final String UNLISTED_PATH_STAND_IN = "/orders/00000000-0000-7000-8000-000000000000";

    private static final OpenApiInteractionValidator VALIDATOR = OpenApiInteractionValidator
            .createForSpecificationUrl(Path.of("openapi.yaml").toAbsolutePath().toUri().toString())
            .withLevelResolver(LevelResolver.create().withDefaultLevel(ValidationReport.Level.ERROR).build())
            .withCustomResponseValidation(Contract::documentedHeadersOnly)
            .build();

    private Contract() {
    }

    /** Marks a deliberately invalid request: it is sent unvalidated; its response is validated as always. */
    public static Filter invalidRequest() {
        return new InvalidRequest();
    }

    /**
     * Adds the validating filter to RESTAssured's defaults unless it is there already. RESTAssured's defaults outlive
     * a Quarkus application (another test profile or resource restarts it, with a class loader of its own), so a
     * filter left by an earlier application is replaced: it would not recognise this one's {@link #invalidRequest()}.
     */
    public static void install() {
        if (RestAssured.filters().stream().anyMatch(Validation.class::isInstance)) {
            return;
        }
        List<Filter> others = new ArrayList<>(RestAssured.filters().stream()
                .filter(f -> !f.getClass().getName().equals(Validation.class.getName())).toList());
        others.add(new Validation());
        RestAssured.replaceFiltersWith(others);
    }

    /**
     * The contract's verdict on one exchange; {@code requestToo} false checks the response only. When
     * {@code response} is {@link Named} every header it carries is held to the contract, else those of
     * {@link #API_HEADERS}.
     */
    public static ValidationReport validate(Request request, Response response, boolean requestToo) {
        ValidationReport report = verdict(request, response, requestToo);
        if (request.getMethod() != Request.Method.HEAD) {
            return report;
        }
        // the answer to HEAD is the answer to GET without its body (RFC 9110 §9.3.2): a missing body is no fault
        return ValidationReport.from(report.getMessages().stream()
                .filter(m -> !m.getKey().equals("validation.response.body.missing")).toList());
    }

    private static ValidationReport verdict(Request request, Response response, boolean requestToo) {
        if (requestToo) {
            return VALIDATOR.validate(request, response);
        }
        ValidationReport report = VALIDATOR.validateResponse(request.getPath(), request.getMethod(), response);
        if (response.getStatus() == 404 && isUnlistedPath(report)) {
            return VALIDATOR.validateResponse(UNLISTED_PATH_STAND_IN, Request.Method.GET, response);
        }
        if (response.getStatus() == 405 && isUnknownOperation(report)) {
            // a method the path does not list: the 405 is documented on the methods it does list
            for (Request.Method listed : Request.Method.values()) {
                ValidationReport asListed = VALIDATOR.validateResponse(request.getPath(), listed, response);
                if (!isUnknownOperation(asListed)) {
                    return asListed;
                }
            }
        }
        return report;
    }

    /**
     * A {@link java.net.http.HttpClient} exchange, validated as the RESTAssured ones are: returns {@code response}, or
     * fails the test with the contract's verdict. {@code body} is what was sent (null for none): a
     * {@link HttpRequest} does not let its body be read back.
     */
    public static <T> HttpResponse<T> asDocumented(HttpRequest request, String body, HttpResponse<T> response) {
        assertAsDocumented(request, body, response.statusCode(), response.headers(), bytes(response.body()), true);
        return response;
    }

    /** As {@link #asDocumented}, for a deliberately invalid request: only the response is validated. */
    public static <T> HttpResponse<T> asDocumentedResponse(HttpRequest request, HttpResponse<T> response) {
        assertAsDocumented(request, null, response.statusCode(), response.headers(), bytes(response.body()), false);
        return response;
    }

    /** The core of {@link #asDocumented}, for callers that keep the parts of an answer themselves. */
    public static void assertAsDocumented(HttpRequest request, String body, int status, HttpHeaders headers,
            byte[] responseBody, boolean requestToo) {
        if (request.uri().getRawPath().startsWith("/q/")) {
            return;
        }
        SimpleRequest.Builder sent = new SimpleRequest.Builder(request.method(), request.uri().getRawPath());
        request.headers().map().forEach(sent::withHeader);
        String query = request.uri().getRawQuery();
        if (query != null) {
            for (String pair : query.split("&")) {
                int eq = pair.indexOf('=');
                sent.withQueryParam(decode(eq < 0 ? pair : pair.substring(0, eq)), eq < 0 ? "" : decode(pair
                        .substring(eq + 1)));
            }
        }
        if (body != null) {
            sent.withBody(body);
        }
        SimpleResponse.Builder got = SimpleResponse.Builder.status(status);
        if (responseBody != null && responseBody.length > 0) {
            got.withBody(responseBody);
        }
        headers.map().forEach(got::withHeader);
        ValidationReport report = validate(sent.build(), new Named(got.build(), headers.map().keySet()), requestToo);
        if (report.hasErrors()) {
            throw new AssertionError("Not as openapi.yaml says: " + request.method() + " " + request.uri().getPath()
                    + " → " + status + " " + new String(responseBody == null ? new byte[0] : responseBody,
                            StandardCharsets.UTF_8) + "\n" + SimpleValidationReportFormat.getInstance().apply(report));
        }
    }

    private static byte[] bytes(Object body) {
        if (body instanceof byte[] raw) {
            return raw;
        }
        return body == null ? null : body.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static String decode(String s) {
        return URLDecoder.decode(s, StandardCharsets.UTF_8);
    }

    private static boolean isUnlistedPath(ValidationReport report) {
        return report.getMessages().stream().anyMatch(m -> m.getKey().equals("validation.request.path.missing"));
    }

    private static boolean isUnknownOperation(ValidationReport report) {
        return report.getMessages().stream().anyMatch(m -> m.getKey().equals("validation.request.operation.notAllowed")
                || m.getKey().equals("validation.request.path.missing"));
    }

    private static ValidationReport documentedHeadersOnly(Response response, ApiOperation operation) {
        ApiResponse documented = operation.getOperation().getResponses().get(String.valueOf(response.getStatus()));
        if (documented == null) {
            return ValidationReport.empty(); // the validator reports the undocumented status itself
        }
        Map<String, Header> headers = documented.getHeaders() == null ? Map.of() : documented.getHeaders();
        ValidationReport report = ValidationReport.empty();
        Collection<String> sent = response instanceof Named named ? named.names()
                : API_HEADERS.stream().filter(name -> !response.getHeaderValues(name).isEmpty()).toList();
        for (String name : new LinkedHashSet<>(sent)) {
            if (!TRANSPORT_HEADERS.contains(name.toLowerCase(Locale.ROOT))
                    && headers.keySet().stream().noneMatch(name::equalsIgnoreCase)) {
                report = report.merge(ValidationReport.singleton(ValidationReport.Message.create(
                        "validation.response.header.undocumented", "Header " + name + " is sent with "
                                + response.getStatus() + " but not documented for it").build()));
            }
        }
        return report;
    }

    /** A response with the names of the headers it carries (the validator's model cannot list them). */
    record Named(Response response, Collection<String> names) implements Response {

        @Override
        public int getStatus() {
            return response.getStatus();
        }

        @Override
        public Optional<String> getBody() {
            return response.getBody();
        }

        @Override
        public Optional<Body> getResponseBody() {
            return response.getResponseBody();
        }

        @Override
        public Collection<String> getHeaderValues(String name) {
            return response.getHeaderValues(name);
        }
    }

    private static final class InvalidRequest implements Filter {
        @Override
        public io.restassured.response.Response filter(FilterableRequestSpecification request,
                FilterableResponseSpecification response, FilterContext ctx) {
            return ctx.next(request, response);
        }
    }

    private static final class Validation implements OrderedFilter {

        @Override
        public io.restassured.response.Response filter(FilterableRequestSpecification request,
                FilterableResponseSpecification responseSpec, FilterContext ctx) {
            io.restassured.response.Response response = ctx.next(request, responseSpec);
            if (request.getDerivedPath().startsWith("/q/")) {
                return response;
            }
            boolean requestToo = request.getDefinedFilters().stream()
                    .noneMatch(f -> f.getClass().getName().equals(InvalidRequest.class.getName()));
            ValidationReport report = validate(RestAssuredRequest.of(request), new Named(RestAssuredResponse.of(
                    response), response.getHeaders().asList().stream().map(io.restassured.http.Header::getName)
                    .toList()), requestToo);
            if (report.hasErrors()) {
                String details = SimpleValidationReportFormat.getInstance().apply(report);
                throw new AssertionError("Not as openapi.yaml says: " + request.getMethod() + " "
                        + request.getDerivedPath() + " → " + response.statusCode() + "\n"
                        + (details.length() > 4000 ? details.substring(0, 4000) + " …" : details));
            }
            return response;
        }

        @Override
        public int getOrder() {
            return OrderedFilter.LOWEST_PRECEDENCE; // last before the request goes out: it sees what is sent
        }
    }
}
