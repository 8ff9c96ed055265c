package io.orderflow.support;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.jboss.logmanager.ExtLogRecord;
import org.jboss.logmanager.formatters.PatternFormatter;

/**
 * What the service logs while a {@code @QuarkusTest} runs (the application shares the test's JVM and its JBoss log
 * manager): a handler on the root logger that keeps every record from {@link #start()} until {@link #close()}.
 */
public final class CapturedLog extends Handler implements AutoCloseable {

    private final List<LogRecord> records = new CopyOnWriteArrayList<>();

    private CapturedLog() {
        setLevel(Level.ALL);
    }

    public static CapturedLog start() {
        CapturedLog log = new CapturedLog();
        Logger.getLogger("").addHandler(log);
        return log;
    }

    /**
     * The records at {@code level} or above ({@link Level#SEVERE} is JBoss's ERROR, {@link Level#WARNING} its WARN),
     * each as "LEVEL [logger] message" with its thrown exception.
     */
    public List<String> atLeast(Level level) {
        return records.stream().filter(r -> r.getLevel().intValue() >= level.intValue()).map(CapturedLog::line)
                .toList();
    }

    private static String line(LogRecord r) {
        String message = r instanceof ExtLogRecord ext ? ext.getFormattedMessage()
                : r.getMessage();
        return r.getLevel() + " [" + r.getLoggerName() + "] " + message
                + (r.getThrown() == null ? "" : " (" + r.getThrown() + ")");
    }

    /**
     * The records of the logger {@code name}, each as a console with {@code format} (a pattern such as
     * {@code quarkus.log.console.format}) prints it, with the MDC the record was logged under.
     */
    public List<String> formatted(String name, String format) {
        PatternFormatter formatter = new PatternFormatter(format);
        return records.stream().filter(r -> name.equals(r.getLoggerName())).map(formatter::format).toList();
    }

    @Override
    public void publish(LogRecord record) {
        if (record instanceof ExtLogRecord ext) {
            // the MDC (a request's trace id) is read when asked for: keep the one of the logging thread and moment
            ext.copyMdc();
        }
        records.add(record);
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
        Logger.getLogger("").removeHandler(this);
    }
}
