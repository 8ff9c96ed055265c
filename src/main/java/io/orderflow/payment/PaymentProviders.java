package io.orderflow.payment;

import io.orderflow.payment.spi.PaymentProvider;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.jboss.logging.Logger;

/**
 * The providers this deployment offers, by name: every {@link PaymentProvider} bean whose settings are present.
 * Adding a provider is adding a package with its bean and config; nothing here changes.
 */
@ApplicationScoped
public class PaymentProviders {

    private static final Logger LOG = Logger.getLogger(PaymentProviders.class);

    private final Map<String, PaymentProvider> configured = new TreeMap<>();

    public PaymentProviders(@Any Instance<PaymentProvider> all) {
        for (PaymentProvider provider : all) {
            if (provider.configured()) {
                configured.put(provider.name(), provider);
            }
        }
    }

    void announce(@Observes StartupEvent started) {
        LOG.infof("Payment providers offered: %s", configured.keySet());
    }

    /** The provider named {@code name} when it is configured here. */
    public Optional<PaymentProvider> find(String name) {
        return Optional.ofNullable(name == null ? null : configured.get(name));
    }

    public Set<String> names() {
        return Set.copyOf(configured.keySet());
    }
}
