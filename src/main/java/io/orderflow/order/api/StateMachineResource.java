package io.orderflow.order.api;

import io.orderflow.common.problem.ProblemException;
import io.orderflow.common.problem.ProblemType;
import io.orderflow.order.domain.OrderEvent;
import io.orderflow.order.domain.OrderStatus;
import io.orderflow.order.domain.OrderTransitions;
import io.quarkus.security.Authenticated;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.Arrays;
import java.util.List;
import org.jboss.resteasy.reactive.RestQuery;

/** Publishes the transition table, as JSON or as a Mermaid state diagram; both are generated from the table. */
@Authenticated
@Path("/state-machine")
public class StateMachineResource {

    public record View(List<OrderStatus> states, List<Rule> transitions) {
    }

    /** {@code when} names the rule's condition besides the status (absent when there is none). */
    public record Rule(OrderEvent event, List<OrderStatus> from, OrderStatus to, OrderTransitions.Condition when) {
    }

    @GET
    public Response get(@RestQuery String format) {
        if (format == null || format.equals("json")) {
            return Response.ok(json(), MediaType.APPLICATION_JSON).build();
        }
        if (format.equals("mermaid")) {
            return Response.ok(mermaid(), MediaType.TEXT_PLAIN).build();
        }
        throw ProblemException.of(ProblemType.INVALID_REQUEST, "format must be json or mermaid");
    }

    public static View json() {
        return new View(Arrays.asList(OrderStatus.values()), OrderTransitions.rules().stream()
                .map(r -> new Rule(r.event(), r.from(), r.to(),
                        r.when() == OrderTransitions.Condition.ALWAYS ? null : r.when())).toList());
    }

    /** A Mermaid {@code stateDiagram-v2}: one arrow per (from, event), terminal states lead to [*]. */
    public static String mermaid() {
        StringBuilder out = new StringBuilder("stateDiagram-v2\n    [*] --> ").append(OrderStatus.CREATED).append('\n');
        for (OrderTransitions.Rule rule : OrderTransitions.rules()) {
            for (OrderStatus from : rule.from()) {
                out.append("    ").append(from).append(" --> ").append(rule.to()).append(": ").append(rule.event())
                        .append(rule.when() == OrderTransitions.Condition.ALWAYS ? ""
                                : " [" + rule.when().name().toLowerCase().replace('_', ' ') + "]")
                        .append('\n');
            }
        }
        for (OrderStatus state : OrderStatus.values()) {
            if (OrderTransitions.allowedEvents(state).isEmpty()) {
                out.append("    ").append(state).append(" --> [*]\n");
            }
        }
        return out.toString();
    }
}
