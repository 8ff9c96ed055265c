package io.orderflow.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaAnnotation;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import io.quarkus.test.junit.TestProfile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;

/**
 * The fast tier ({@code ./mvnw test}) leaves out the tests that restart Quarkus under a profile of their own, by
 * their tag and by name (src/test/profile-tests.txt): a new {@code @TestProfile} test missing from either would
 * quietly slow every developer's run.
 */
@AnalyzeClasses(packages = "io.orderflow", importOptions = ImportOption.OnlyIncludeTests.class)
class TestTierRulesTest {

    private static final Path PROFILE_TESTS = Path.of("src/test/profile-tests.txt");

    private static final DescribedPredicate<JavaAnnotation<?>> PROFILE_TAG = new DescribedPredicate<>(
            "@Tag(\"profile\")") {
        @Override
        public boolean test(JavaAnnotation<?> annotation) {
            return annotation.getRawType().isEquivalentTo(Tag.class)
                    && "profile".equals(annotation.get("value").orElse(null));
        }
    };

    private static final ArchCondition<JavaClass> BE_LISTED = new ArchCondition<>("be listed in " + PROFILE_TESTS) {
        @Override
        public void check(JavaClass test, ConditionEvents events) {
            String entry = test.getName().replace('.', '/') + ".java";
            events.add(new SimpleConditionEvent(test, listed().contains(entry),
                    test.getName() + (listed().contains(entry) ? " is" : " is not") + " listed as " + entry));
        }
    };

    @ArchTest
    static final ArchRule everyTestWithAProfileOfItsOwnShouldBeTaggedProfile = classes()
            .that().areAnnotatedWith(TestProfile.class)
            .should().beAnnotatedWith(PROFILE_TAG)
            .because("docs/testing.md: the fast tier excludes the group 'profile', the full tier (-Pfull) runs it");

    @ArchTest
    static final ArchRule everyTestWithAProfileOfItsOwnShouldBeListedForTheFastTierToLeaveOut = classes()
            .that().areAnnotatedWith(TestProfile.class)
            .should(BE_LISTED)
            .because("Quarkus builds an application for every @QuarkusTest class JUnit loads, tag or not");

    private static Set<String> listed() {
        try {
            return Files.readAllLines(PROFILE_TESTS).stream().map(String::strip)
                    .filter(line -> !line.isEmpty() && !line.startsWith("#")).collect(Collectors.toSet());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
