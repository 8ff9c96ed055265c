package io.orderflow.client;

import java.util.Map;
import java.util.Optional;

/**
 * The service's refusal as an RFC 9457 problem: switch on {@link #type()} (the URIs are in {@link ProblemTypes} and
 * in openapi.yaml's {@code Problem} schema), never on the title or detail. The type-specific members
 * ({@code allowedEvents}, {@code currentVersion}, {@code oldestCursor}...) are in {@link #members()}. An answer that
 * is no problem document (an empty 400 from the HTTP codec, a proxy's 502 page) is {@code about:blank} with the
 * status's name as its title.
 */
public class ProblemException extends OrderflowException {

    private final String type;
    private final String title;
    private final int status;
    private final String detail;
    private final Map<String, Object> members;

    ProblemException(String operation, Problem problem, String idempotencyKey, int attempts) {
        super(operation + ": " + problem.status + " " + problem.type + (problem.detail == null ? ""
                : ": " + problem.detail), null, idempotencyKey, attempts);
        this.type = problem.type;
        this.title = problem.title;
        this.status = problem.status;
        this.detail = problem.detail;
        this.members = problem.members;
    }

    /** The problem as the service sent it; {@link Problems} reads it from an answer. */
    static final class Problem {
        final String type;
        final String title;
        final int status;
        final String detail;
        final Map<String, Object> members;

        Problem(String type, String title, int status, String detail, Map<String, Object> members) {
            this.type = type;
            this.title = title;
            this.status = status;
            this.detail = detail;
            this.members = members;
        }
    }

    public String type() {
        return type;
    }

    public String title() {
        return title;
    }

    public int status() {
        return status;
    }

    /** The occurrence's explanation, for people; may be null. */
    public String detail() {
        return detail;
    }

    /** The type-specific members (everything but type, title, status, detail), as JSON values: maps, lists, strings, numbers. */
    public Map<String, Object> members() {
        return members;
    }

    public Optional<Object> member(String name) {
        return Optional.ofNullable(members.get(name));
    }

    /** True when this is the problem {@code type} (a full URI, e.g. {@link ProblemTypes#ILLEGAL_TRANSITION}). */
    public boolean is(String type) {
        return this.type.equals(type);
    }
}
