package io.orderflow.architecture;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaConstructor;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.domain.JavaParameterizedType;
import com.tngtech.archunit.core.domain.JavaType;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * Which bean of {@code io.orderflow} needs which, read from the compiled classes: an edge for every injection point
 * (a constructor's parameters, an {@code @Inject} field or method, a producer method's parameters) to every bean of
 * {@code io.orderflow} that can satisfy it. An interface or class resolves to each bean assignable to it (qualifiers
 * are not read, so this may see more edges than ArC, never fewer), an {@code Instance<T>} or {@code Provider<T>} to
 * each bean of {@code T} (a lookup hides a dependency, it does not remove it), a produced type to the bean whose
 * method produces it.
 */
final class BeanGraph {

    private static final String BASE = "io.orderflow.";
    private static final Set<String> BEAN_DEFINING = Set.of("jakarta.enterprise.context.ApplicationScoped",
            "jakarta.inject.Singleton", "jakarta.enterprise.context.RequestScoped",
            "jakarta.enterprise.context.Dependent", "jakarta.ws.rs.Path");
    private static final Set<String> LOOKUPS = Set.of("jakarta.enterprise.inject.Instance", "jakarta.inject.Provider",
            "io.quarkus.arc.InjectableInstance");
    private static final String INJECT = "jakarta.inject.Inject";
    private static final String PRODUCES = "jakarta.enterprise.inject.Produces";

    /** For each bean (by name), the beans it needs, each with how (the injection point's type, when it says more). */
    private final Map<String, Map<String, String>> edges = new TreeMap<>();

    private BeanGraph() {
    }

    static BeanGraph of(JavaClasses classes) {
        List<JavaClass> beans = classes.stream().filter(BeanGraph::isBean)
                .sorted(Comparator.comparing(JavaClass::getName)).toList();
        Map<JavaClass, JavaClass> producers = new HashMap<>();
        beans.forEach(bean -> bean.getMethods().stream().filter(m -> m.isAnnotatedWith(PRODUCES))
                .forEach(m -> producers.put(m.getRawReturnType(), bean)));
        BeanGraph graph = new BeanGraph();
        for (JavaClass bean : beans) {
            Map<String, String> needs = graph.edges.computeIfAbsent(bean.getName(), name -> new TreeMap<>());
            injectionPoints(bean).forEach(point -> {
                JavaType wanted = point;
                String how = "";
                if (point instanceof JavaParameterizedType lookup && LOOKUPS.contains(point.toErasure().getName())) {
                    wanted = lookup.getActualTypeArguments().get(0);
                    how = point.toErasure().getSimpleName() + "<" + wanted.toErasure().getSimpleName() + ">";
                }
                JavaClass type = wanted.toErasure();
                if (!type.getName().startsWith(BASE)) {
                    return;
                }
                String lookup = how;
                beans.stream().filter(candidate -> candidate.isAssignableTo(type.getName()))
                        .forEach(target -> needs.putIfAbsent(target.getName(), !lookup.isEmpty() ? lookup
                                : target.equals(type) ? "" : type.getSimpleName()));
                producers.forEach((produced, producer) -> {
                    if (produced.isAssignableTo(type.getName())) {
                        needs.putIfAbsent(producer.getName(), "produces " + produced.getSimpleName());
                    }
                });
            });
        }
        return graph;
    }

    /** The beans {@code bean} needs, by name. */
    Set<String> needs(String bean) {
        return edges.getOrDefault(bean, Map.of()).keySet();
    }

    /**
     * One cycle per group of beans that reach each other (the shortest through the group's first bean by name), as
     * a path: {@code order.OrderService -[Instance<TransitionParticipant>]-> payment.attempts.PaymentParticipant ->
     * ... -> order.OrderService}.
     */
    List<String> cycles() {
        List<String> cycles = new ArrayList<>();
        for (Set<String> group : stronglyConnected()) {
            String first = group.iterator().next();
            if (group.size() > 1 || needs(first).contains(first)) {
                cycles.add(path(shortestCycle(first, group)));
            }
        }
        return cycles;
    }

    /** Tarjan's strongly connected components: the groups of beans that all reach each other. */
    private List<Set<String>> stronglyConnected() {
        List<Set<String>> groups = new ArrayList<>();
        Map<String, Integer> index = new HashMap<>();
        Map<String, Integer> lowest = new HashMap<>();
        Deque<String> stack = new ArrayDeque<>();
        for (String bean : edges.keySet()) {
            if (!index.containsKey(bean)) {
                connect(bean, index, lowest, stack, groups);
            }
        }
        return groups;
    }

    private void connect(String bean, Map<String, Integer> index, Map<String, Integer> lowest, Deque<String> stack,
            List<Set<String>> groups) {
        index.put(bean, index.size());
        lowest.put(bean, index.get(bean));
        stack.push(bean);
        for (String next : needs(bean)) {
            if (!index.containsKey(next)) {
                connect(next, index, lowest, stack, groups);
                lowest.put(bean, Math.min(lowest.get(bean), lowest.get(next)));
            } else if (stack.contains(next)) {
                lowest.put(bean, Math.min(lowest.get(bean), index.get(next)));
            }
        }
        if (lowest.get(bean).equals(index.get(bean))) {
            Set<String> group = new TreeSet<>();
            String member;
            do {
                member = stack.pop();
                group.add(member);
            } while (!member.equals(bean));
            groups.add(group);
        }
    }

    private List<String> shortestCycle(String from, Set<String> within) {
        Map<String, String> cameFrom = new LinkedHashMap<>();
        Deque<String> queue = new ArrayDeque<>(List.of(from));
        while (!queue.isEmpty()) {
            String at = queue.poll();
            for (String next : needs(at)) {
                if (next.equals(from)) {
                    List<String> cycle = new ArrayList<>(List.of(from));
                    for (String step = at; !step.equals(from); step = cameFrom.get(step)) {
                        cycle.add(1, step);
                    }
                    cycle.add(from);
                    return cycle;
                }
                if (within.contains(next) && !cameFrom.containsKey(next)) {
                    cameFrom.put(next, at);
                    queue.add(next);
                }
            }
        }
        throw new IllegalStateException(from + " is in no cycle");
    }

    private String path(List<String> cycle) {
        StringBuilder path = new StringBuilder(shortName(cycle.get(0)));
        for (int i = 1; i < cycle.size(); i++) {
            String how = edges.get(cycle.get(i - 1)).get(cycle.get(i));
            path.append(how.isEmpty() ? " -> " : " -[" + how + "]-> ").append(shortName(cycle.get(i)));
        }
        return path.toString();
    }

    private static String shortName(String name) {
        return name.substring(BASE.length());
    }

    private static boolean isBean(JavaClass type) {
        return type.getName().startsWith(BASE) && !type.isInterface() && !type.getModifiers().contains(
                JavaModifier.ABSTRACT) && BEAN_DEFINING.stream().anyMatch(type::isAnnotatedWith);
    }

    /** Where ArC injects into {@code bean}: its bean constructor, @Inject fields and methods, producers' parameters. */
    private static Stream<JavaType> injectionPoints(JavaClass bean) {
        List<JavaConstructor> injecting = bean.getConstructors().stream().filter(c -> c.isAnnotatedWith(INJECT))
                .toList();
        List<JavaConstructor> constructors = injecting.isEmpty() && bean.getConstructors().size() == 1
                ? List.copyOf(bean.getConstructors()) : injecting;
        Stream<JavaCodeUnit> units = Stream.concat(constructors.stream().map(JavaCodeUnit.class::cast),
                bean.getMethods().stream().filter(m -> m.isAnnotatedWith(INJECT) || m.isAnnotatedWith(PRODUCES)));
        Stream<JavaType> fields = bean.getFields().stream().filter(f -> f.isAnnotatedWith(INJECT))
                .map(JavaField::getType);
        return Stream.concat(units.flatMap(unit -> unit.getParameterTypes().stream()), fields);
    }
}
