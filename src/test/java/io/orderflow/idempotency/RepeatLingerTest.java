package io.orderflow.idempotency;

import static io.orderflow.support.OrderMother.*;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.micrometer.core.instrument.MeterRegistry;
import io.orderflow.support.Meters;
import io.orderflow.support.NarrowOverrides;
import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The replay linger goes by the key, not by the Idempotent-Replayed header: a key whose stored answer was replayed
 * is kept in the replica's memory for the replay linger, while a new key answered with the state machine's duplicate
 * verdict (marked replayed for the client) is a first answer and gets the first-answer linger only (none here).
 */
@QuarkusTest
@Tag("profile")
@TestProfile(NarrowOverrides.class)
class RepeatLingerTest {

    @Inject
    MeterRegistry registry;

    @Inject
    RedisDataSource redis;

    private double replays(String layer) {
        return Meters.count(registry, "orderflow.idempotency.replays", "layer", layer);
    }

    /** Which layer answered a repeat of {@code first}, sent with Redis emptied: a count per layer. */
    private record Answered(double fromMemory, double fromDatabase) {
    }

    private Answered repeatWithRedisEmptied(String id, String key, Response first) {
        redis.execute("FLUSHDB");
        double fromMemory = replays("replica");
        double fromDatabase = replays("database");
        Response repeat = postKeyed(id, "ship", shipBody(), key);
        repeat.then().statusCode(200).header("Idempotent-Replayed", "true");
        assertArrayEquals(first.asByteArray(), repeat.asByteArray());
        return new Answered(replays("replica") - fromMemory, replays("database") - fromDatabase);
    }

    @Test
    void aKeyWhoseStoredAnswerWasReplayedIsThenAnsweredFromThisReplicasMemory() {
        String id = paidOrder();
        String key = newKey();
        Response first = postKeyed(id, "ship", shipBody(), key);
        first.then().statusCode(200);
        postKeyed(id, "ship", shipBody(), key).then().statusCode(200).header("Idempotent-Replayed", "true");
        assertEquals(new Answered(1, 0), repeatWithRedisEmptied(id, key, first),
                "the repeated key's answer stayed in memory");
    }

    @Test
    void aNewKeysDuplicateVerdictIsNotKeptForTheReplayLinger() {
        String id = paidOrder();
        postKeyed(id, "ship", shipBody(), newKey()).then().statusCode(200);
        String key = newKey();
        Response duplicate = postKeyed(id, "ship", shipBody(), key);
        duplicate.then().statusCode(200).header("Idempotent-Replayed", "true");
        assertEquals(new Answered(0, 1), repeatWithRedisEmptied(id, key, duplicate),
                "the duplicate verdict was a first answer, not kept: its repeat was answered from its stored record");
    }
}
