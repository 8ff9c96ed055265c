package io.orderflow.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaAnnotation;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import io.quarkus.test.junit.TestProfile;
import org.junit.jupiter.api.Tag;

/**
 * The fast tier ({@code ./mvnw test}) leaves out the tests that restart Quarkus under a profile of their own, by
 * their tag: a new {@code @TestProfile} test without the tag would quietly slow every developer's run.
 */
@AnalyzeClasses(packages = "io.orderflow", importOptions = ImportOption.OnlyIncludeTests.class)
class TestTierRulesTest {

    private static final DescribedPredicate<JavaAnnotation<?>> PROFILE_TAG = new DescribedPredicate<>(
            "@Tag(\"profile\")") {
        @Override
        public boolean test(JavaAnnotation<?> annotation) {
            return annotation.getRawType().isEquivalentTo(Tag.class)
                    && "profile".equals(annotation.get("value").orElse(null));
        }
    };

    @ArchTest
    static final ArchRule everyTestWithAProfileOfItsOwnShouldBeTaggedProfile = classes()
            .that().areAnnotatedWith(TestProfile.class)
            .should().beAnnotatedWith(PROFILE_TAG)
            .because("docs/testing.md: the fast tier excludes the group 'profile', the full tier (-Pfull) runs it");
}
