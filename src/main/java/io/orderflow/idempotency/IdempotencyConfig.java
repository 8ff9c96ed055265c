package io.orderflow.idempotency;

import io.quarkus.runtime.configuration.MemorySize;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;

/**
 * How long dedup records live and how the Redis shutter behaves. Rule for retention: longer than the longest
 * retry span of any caller + clock skew + the window in which an operator may replay by hand.
 */
@ConfigMapping(prefix = "idempotency")
public interface IdempotencyConfig {

    Retention retention();

    Redis redis();

    Replica replica();

    Sweeper sweeper();

    Records records();

    interface Retention {
        /** Keys of order requests (create, ship, deliver, cancel): clients retry for minutes to hours. */
        @WithDefault("7d")
        Duration orders();

        /** Keys of payment requests and provider events: providers retry for up to 3 days, disputes take longer. */
        @WithDefault("30d")
        Duration payments();

        /** How long an EXPIRED row stays (refusing late retries clearly) before it is purged. */
        @WithDefault("7d")
        Duration purgeGrace();
    }

    interface Redis {
        /** Use Redis as the fast shutter in front of the database. Off: every request goes to the database. */
        @WithDefault("true")
        boolean enabled();

        /** Longest wait for a Redis answer; past it the request goes on without Redis. */
        @WithDefault("50ms")
        Duration timeout();

        /** Life of an in-flight marker; bounds how long a crashed holder blocks its key in Redis. */
        @WithDefault("30s")
        Duration pendingTtl();

        /**
         * How long a repeat waits for the first request with its key to finish, then replays its response; past it
         * the repeat gets 409 request-in-flight with Retry-After.
         */
        @WithDefault("3s")
        Duration inFlightWait();

        /**
         * After this much of the in-flight wait, a repeat asks PostgreSQL once whether the holder has finished: a
         * holder whose answer never reached Redis (a Redis timeout, a crash after the commit) leaves its marker
         * behind, and the record already holds the answer.
         */
        @WithDefault("250ms")
        Duration inFlightCheck();

        /** Life of a cached completed response (never longer than the record's retention). */
        @WithDefault("1h")
        Duration cacheTtl();

        /**
         * Consecutive Redis failures or timeouts that open the breaker: while it is open the shutter does not call
         * Redis at all (requests go straight to the database), so a sick Redis costs nothing and its client's queue
         * can drain.
         */
        @WithDefault("10")
        int breakerFailures();

        /**
         * How long the breaker stays open; then one command probes Redis (others meanwhile go straight to the
         * database): its success closes the breaker, its failure opens it again.
         */
        @WithDefault("1s")
        Duration breakerOpen();
    }

    interface Replica {
        /**
         * How long a first answer (its key was new) stays in memory after the request that produced it finished,
         * for repeats right behind it: longer than writing it to Redis takes, short enough to die young in the
         * heap. 0: only while the request runs.
         */
        @WithDefault("200ms")
        Duration linger();

        /**
         * How long the answer to a repeat (its key had been answered before) stays in memory: a key asked again is
         * usually asked again and again, and its answer never changes. 0: not kept after its request.
         */
        @WithDefault("10s")
        Duration replayLinger();

        /**
         * At most this many requests run through the in-memory shortcut at once; beyond it a request runs through
         * the layers without it, as a copy on another replica would, so a flood of distinct keys cannot grow the
         * heap.
         */
        @WithDefault("10000")
        int maxEntries();

        /**
         * At most this many bytes of finished answers stay in memory (each counted with its body, its key and about
         * 400 bytes around them); beyond it the least valuable go first.
         */
        @WithDefault("16M")
        MemorySize maxBytes();
    }

    /** Dedup records written on their own (a duplicate's or a refusal's, which change no business row). */
    interface Records {
        /**
         * Whether concurrent records are stored together, as one statement and one commit (group commit, like the
         * transitions'); at low load each still goes at once, alone.
         */
        @WithDefault("true")
        boolean groupCommit();

        /** Most records stored by one statement. */
        @WithDefault("64")
        int maxRows();

        /** Statements storing records at PostgreSQL at once; further records queue for the next batch. */
        @WithDefault("2")
        int maxInFlight();

        /** Records waiting for their batch; one more is refused at once with 503 and Retry-After. */
        @WithDefault("1024")
        int maxWaiting();

        /** The longest a record waits for its batch; past it, it is refused with 503 and never sent. */
        @WithDefault("2s")
        Duration maxWait();
    }

    interface Sweeper {
        /** How often each replica sweeps (a Quarkus scheduler period such as 60s, or off). */
        @WithDefault("60s")
        String every();

        /** Rows marked or purged per statement. */
        @WithDefault("500")
        int batchSize();
    }
}
