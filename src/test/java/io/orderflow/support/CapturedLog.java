package io.orderflow.support;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.jboss.logmanager.ExtLogRecord;
import org.jboss.logmanager.formatters.PatternFormatter;

/**
 * What the service logs while a {@code @QuarkusTest} runs (the application shares the test's JVM and its JBoss log
 * manager): a handler on the root logger, and on the categories that keep their records from it, that keeps every
 * record from {@link #start()} until {@link #close()}.
 */
public final class CapturedLog extends Handler implements AutoCloseable {

    private final List<LogRecord> records = new CopyOnWriteArrayList<>();

    /** The loggers listened to, held until {@link #close()}: JBoss forgets the names of loggers no one holds. */
    private final List<Logger> loggers = listened();

    private CapturedLog() {
        setLevel(Level.ALL);
    }

    public static CapturedLog start() {
        CapturedLog log = new CapturedLog();
        log.loggers.forEach(logger -> logger.addHandler(log));
        return log;
    }

    /**
     * The root logger and every logger that keeps its records from it (a category with handlers of its own). The
     * categories are found among the ancestors of the loggers in use: a configured category such as
     * {@code io.orderflow.payment} is not listed by name once no one holds its own logger.
     */
    private static List<Logger> listened() {
        Set<String> names = new TreeSet<>();
        for (String name : Collections.list(LogManager.getLogManager().getLoggerNames())) {
            for (int dot = name.indexOf('.'); dot > 0; dot = name.indexOf('.', dot + 1)) {
                names.add(name.substring(0, dot));
            }
            names.add(name);
        }
        List<Logger> loggers = new ArrayList<>(List.of(Logger.getLogger("")));
        for (String name : names) {
            Logger logger = Logger.getLogger(name);
            if (!name.isEmpty() && !logger.getUseParentHandlers()) {
                loggers.add(logger);
            }
        }
        return loggers;
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
        loggers.forEach(logger -> logger.removeHandler(this));
    }
}
