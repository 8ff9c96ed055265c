package io.orderflow.bench;

import static io.gatling.javaapi.core.CoreDsl.pause;
import static io.gatling.javaapi.core.CoreDsl.exec;

import java.time.Duration;

/**
 * Scenario 2, the duplicate storm (and scenario 3, the same storm against a service whose Redis is down): the
 * lifecycle of scenario 1, with every request and callback sent 5 times — 25 requests per order, 5 of them first
 * times and 20 duplicates.
 *
 * <p>Gatling sends a user's requests one after the other, except a request's {@code resources}, which it sends
 * concurrently once the main request has answered. So each step's three concurrent copies ("race ×3") ride as
 * resources on a late copy of an earlier step: the three race each other for the key (or, for the keyless SHIP, for
 * the compare-and-set), and the earlier step gets a repeat that arrives after its first answer ("replay").
 *
 * <pre>
 *   create                        + 2 replays of create, concurrent, right after it
 *   replay create                 + race ×3 pay
 *   replay create                 + race ×3 callback              (same event id, same bytes)
 *   replay pay                    + race ×3 ship, keyless          (the state machine judges the repeats)
 *   replay pay                    + race ×3 deliver, keyed
 *   pause 0.5 s
 *   replay callback               + replay callback, 2 replays of ship (keyless), 2 replays of deliver
 * </pre>
 * Per order: create 5, pay 5, callback 5, ship 5, deliver 5. Replays of keyed requests ("replay (keyed)") should
 * be answered by Redis; replays of the keyless SHIP ("replay (keyless ship)") by the state machine. A race's three
 * copies are reported together: one of them did the work, the others waited for it (Redis in-flight marker) or
 * lost the compare-and-set.
 */
public class DuplicateStormSimulation extends BenchSimulation {

    static final String REPLAY_KEYED = "replay (keyed)";
    static final String REPLAY_KEYLESS = "replay (keyless ship)";

    public DuplicateStormSimulation() {
        super(25, 4);
        run("duplicate storm", name -> exec(Requests.newOrder())
                .exec(Requests.create(name + "create", true)
                        .resources(Requests.create(name + REPLAY_KEYED, false),
                                Requests.create(name + REPLAY_KEYED, false)))
                .exec(Requests.create(name + REPLAY_KEYED, false)
                        .resources(Requests.pay(name + "race ×3: pay"), Requests.pay(name + "race ×3: pay"),
                                Requests.pay(name + "race ×3: pay")))
                .exec(Requests.prepareCallback())
                .exec(Requests.create(name + REPLAY_KEYED, false)
                        .resources(Requests.callback(name + "race ×3: callback"),
                                Requests.callback(name + "race ×3: callback"),
                                Requests.callback(name + "race ×3: callback")))
                .exec(Requests.pay(name + REPLAY_KEYED)
                        .resources(Requests.ship(name + "race ×3: ship (keyless)"),
                                Requests.ship(name + "race ×3: ship (keyless)"),
                                Requests.ship(name + "race ×3: ship (keyless)")))
                .exec(Requests.pay(name + REPLAY_KEYED)
                        .resources(Requests.deliver(name + "race ×3: deliver", true),
                                Requests.deliver(name + "race ×3: deliver", true),
                                Requests.deliver(name + "race ×3: deliver", true)))
                .exec(pause(Duration.ofMillis(500)))
                .exec(Requests.callback(name + REPLAY_KEYED)
                        .resources(Requests.callback(name + REPLAY_KEYED),
                                Requests.ship(name + REPLAY_KEYLESS), Requests.ship(name + REPLAY_KEYLESS),
                                Requests.deliver(name + REPLAY_KEYED, true),
                                Requests.deliver(name + REPLAY_KEYED, true))));
    }
}
