package io.orderflow.support;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a service instance's captured output for trouble. The output is cut into records (a line starting with a
 * log timestamp plus the lines that continue it, such as a stack trace); a record is a problem when it is at ERROR
 * or FATAL, carries a stack trace, or names an exception — unless its first line matches one of the patterns the
 * caller allows, each a documented degraded mode.
 */
public final class LogScan {

    /**
     * Redis timed out (50 ms) or failed often enough in a row to open the shutter's breaker, and the database decided
     * instead: documented, not an error (a starved test machine can delay Redis answers that long).
     */
    public static final Pattern REDIS_FALLBACK = Pattern.compile(
            "WARN .*Redis failing .*idempotency goes to the database");

    /**
     * Vert.x's blocked-thread warning. It measures wall-clock time, so on a starved machine (two cores shared with
     * other builds) it fires while an event loop merely waits for a CPU, inside ordinary non-blocking code.
     */
    public static final Pattern EVENT_LOOP_STALL = Pattern.compile(
            "WARN .*\\[io.vertx.core.impl.BlockedThreadChecker\\].* has been blocked for");

    /**
     * A statement failed transiently (timed out, connection lost) and the client got 503 with Retry-After: the
     * documented answer to a slow or unreachable database, which an overloaded test machine can produce.
     */
    public static final Pattern TRANSIENT_503 = Pattern.compile("WARN .*Transient failure answered with 503");

    /**
     * The readiness check's statement got no answer in time: PostgreSQL busy or starved (a storm, or a test machine
     * shared with other builds or a CPU hog: seen beside stress-ng --cpu 2); the service answers 503 + Retry-After
     * meanwhile, as documented.
     */
    public static final Pattern DATABASE_SLOW = Pattern.compile(
            "WARN .*PostgreSQL does not answer the readiness check \\(io\\.smallrye\\.mutiny\\.TimeoutException\\)");

    /**
     * Netty could not hand a connection accepted in the last moment of a shutdown to an event loop that had already
     * stopped; the client sees the connection closed, as it would a refused one.
     */
    public static final Pattern ACCEPTED_WHILE_STOPPING = Pattern.compile(
            "WARN .*\\[io.netty.bootstrap.ServerBootstrap\\].* Failed to register an accepted channel");

    /**
     * A sweep the scheduler started while the application was already stopping failed (its beans were being
     * destroyed). Nothing was written; another replica or the next start sweeps again. Seen with a 1 s sweeper
     * period; tolerated only in the part of a log written after SIGTERM.
     */
    public static final Pattern SWEEP_FAILED_WHILE_STOPPING = Pattern.compile(
            "WARN .*Idempotency sweep failed, next run retries");

    /**
     * A scheduled job lost its database (a failover, a shutdown) and its next run retries: a sequencer round (its
     * events get positions in the next one), a relay round to the stream (it catches up from its cursor), a feed
     * purge, a run of the refund worker (its commands stay owed), a webhook dispatch round (cursors and owed
     * deliveries wait).
     */
    public static final Pattern SCHEDULED_JOB_RETRIED = Pattern.compile("WARN .*(Feed sequencer round failed, its"
            + " events get their positions|Relay to the Redis Stream failed, the stream catches up|Feed purge failed,"
            + " next run retries|Webhook log purge failed, next run retries|Refund commands: the run failed, the"
            + " next one retries|Webhook dispatch round failed, the endpoints' cursors)");

    /**
     * A relay round whose calls waited on an unreachable Redis failed after the relay's timeout
     * ({@code events.relay.redis-timeout}): the stream's cursor did not move, and a later round appends those events
     * (docs/events.md). Only where a test froze Redis.
     */
    public static final Pattern RELAY_ROUND_FAILED_ON_REDIS = Pattern.compile(
            "WARN +\\[io\\.orderflow\\.events\\.StreamRelay\\] .*Relay to the Redis Stream failed");

    /**
     * Quarkus's scheduler ran a task (a sweep, the refund worker), or a health probe's answer was
     * completed, while the application was stopping and its beans were gone; or a background round's commit met
     * the pool closing under it (Hibernate Reactive's own line: its transaction did not commit, its events stay
     * owed); Quarkus says so itself ("[Error Occurred After Shutdown]"). Nothing was written.
     */
    public static final Pattern SCHEDULED_AFTER_SHUTDOWN = Pattern.compile(
            "ERROR \\[(io\\.quarkus\\.(scheduler\\.common\\.runtime\\.StatusEmitterInvoker"
                    + "|mutiny\\.runtime\\.MutinyInfrastructure)|org\\.hibernate\\.reactive\\.pool\\.impl\\.SqlClientConnection)"
                    + "\\].*\\[Error Occurred After Shutdown\\]");

    /** The degraded modes the process-level tests accept (and report). */
    public static final Pattern[] TOLERATED = { REDIS_FALLBACK, EVENT_LOOP_STALL, TRANSIENT_503, DATABASE_SLOW,
        SCHEDULED_AFTER_SHUTDOWN };

    /** What is tolerated in the part of a log written after SIGTERM. */
    public static final Pattern[] TOLERATED_WHILE_STOPPING = { REDIS_FALLBACK, EVENT_LOOP_STALL, TRANSIENT_503,
        DATABASE_SLOW, SWEEP_FAILED_WHILE_STOPPING, ACCEPTED_WHILE_STOPPING, SCHEDULED_JOB_RETRIED,
        SCHEDULED_AFTER_SHUTDOWN };

    private static final Pattern RECORD_START = Pattern.compile("^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d,\\d{3} ");
    private static final Pattern SEVERE = Pattern.compile("^\\S+ \\S+ (ERROR|FATAL)\\s");
    private static final Pattern STACK = Pattern.compile("(?m)^\\s+at \\S+\\(.*\\)$|^Caused by: ");
    private static final Pattern NAMES_EXCEPTION = Pattern.compile("(?i)exception|\\berror\\b");

    private LogScan() {
    }

    /** The records of {@code log} (first lines) that show an error or exception not covered by {@code allowed}. */
    public static List<String> problems(String log, Pattern... allowed) {
        List<String> found = new ArrayList<>();
        for (String record : records(log)) {
            String head = record.lines().findFirst().orElse("");
            if (isAllowed(head, allowed)) {
                continue;
            }
            if (SEVERE.matcher(head).find() || STACK.matcher(record).find() || NAMES_EXCEPTION.matcher(record).find()) {
                found.add(head);
            }
        }
        return found;
    }

    /**
     * Problems of an instance that was sent SIGTERM after its log had {@code linesBeforeStop} lines: the lines
     * before are held to {@link #TOLERATED}, the shutdown's own lines to {@link #TOLERATED_WHILE_STOPPING}.
     */
    public static List<String> problemsOfStoppedInstance(String log, long linesBeforeStop) {
        return problemsOfStoppedInstance(log, linesBeforeStop, TOLERATED);
    }

    /** As {@link #problemsOfStoppedInstance(String, long)}, the lines before the stop held to {@code before}. */
    public static List<String> problemsOfStoppedInstance(String log, long linesBeforeStop, Pattern... before) {
        List<String> lines = log.lines().toList();
        int cut = (int) Math.min(linesBeforeStop, lines.size());
        List<String> found = new ArrayList<>(problems(String.join("\n", lines.subList(0, cut)), before));
        found.addAll(problems(String.join("\n", lines.subList(cut, lines.size())), TOLERATED_WHILE_STOPPING));
        return found;
    }

    /** The records whose first line matches {@code pattern}: e.g. how often an allowed degraded mode occurred. */
    public static long count(String log, Pattern pattern) {
        return records(log).stream().filter(r -> pattern.matcher(r.lines().findFirst().orElse("")).find()).count();
    }

    /** How often each tolerated degraded mode occurred, for the test output. */
    public static String toleratedSummary(String log) {
        return count(log, REDIS_FALLBACK) + " Redis fallback warnings, " + count(log, EVENT_LOOP_STALL)
                + " event-loop stall warnings, " + count(log, TRANSIENT_503) + " transient 503s, "
                + count(log, ACCEPTED_WHILE_STOPPING) + " connections accepted while stopping, "
                + count(log, SWEEP_FAILED_WHILE_STOPPING) + " failed sweeps";
    }

    /** Sums the first number captured by {@code pattern} over all lines of {@code log}. */
    public static long sum(String log, Pattern pattern) {
        long total = 0;
        Matcher m = pattern.matcher(log);
        while (m.find()) {
            total += Long.parseLong(m.group(1));
        }
        return total;
    }

    static List<String> records(String log) {
        List<String> records = new ArrayList<>();
        StringBuilder current = null;
        for (String line : log.lines().toList()) {
            if (current == null || RECORD_START.matcher(line).find()) {
                if (current != null) {
                    records.add(current.toString());
                }
                current = new StringBuilder(line);
            } else {
                current.append('\n').append(line);
            }
        }
        if (current != null) {
            records.add(current.toString());
        }
        return records;
    }

    private static boolean isAllowed(String head, Pattern[] allowed) {
        for (Pattern p : allowed) {
            if (p.matcher(head).find()) {
                return true;
            }
        }
        return false;
    }
}
