package io.orderflow.bench;

import static io.gatling.javaapi.core.CoreDsl.exec;

/**
 * Scenario 1, the lifecycle: create → pay → signed PAYMENT_SUCCEEDED callback → ship → deliver, one virtual user
 * per order, many orders in parallel. 5 requests and 4 transitions per user (creation is an insert, not a
 * transition). Create and pay carry Idempotency-Keys as the API requires, the callback is keyed by its event id,
 * ship and deliver are sent without a key as an operator's tool would.
 */
public class LifecycleSimulation extends BenchSimulation {

    public LifecycleSimulation() {
        super(5, 4);
        run("lifecycle", name -> exec(Requests.newOrder())
                .exec(Requests.create(name + "create", true))
                .exec(Requests.pay(name + "pay"))
                .exec(Requests.prepareCallback())
                .exec(Requests.callback(name + "callback PAYMENT_SUCCEEDED"))
                .exec(Requests.ship(name + "ship"))
                .exec(Requests.deliver(name + "deliver", false)));
    }
}
