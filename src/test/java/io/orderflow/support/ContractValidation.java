package io.orderflow.support;

import io.quarkus.test.junit.callback.QuarkusTestBeforeEachCallback;
import io.quarkus.test.junit.callback.QuarkusTestMethodContext;

/**
 * Installs {@link Contract}'s validation before every {@code @QuarkusTest} method (registered in
 * META-INF/services), in the class loader the test runs in, so no test can talk to the service unvalidated.
 */
public class ContractValidation implements QuarkusTestBeforeEachCallback {

    @Override
    public void beforeEach(QuarkusTestMethodContext context) {
        Contract.install();
    }
}
