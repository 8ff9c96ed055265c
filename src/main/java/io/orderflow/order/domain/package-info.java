/**
 * The order lifecycle as plain Java: states, events, the transition table and the rule that tells a
 * duplicate from an illegal transition.
 *
 * <p>Layer rule: nothing here imports Quarkus, Vert.x, Mutiny, Jackson or a database API. Everything
 * else (REST resources, payment callbacks, the CAS repository) asks {@link io.orderflow.order.domain.OrderTransitions}
 * whether an event is legal; no other class decides it.
 */
package io.orderflow.order.domain;
