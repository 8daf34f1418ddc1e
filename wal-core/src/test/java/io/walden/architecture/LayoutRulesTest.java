package io.walden.architecture;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The layout rules fail on a broken layout ({@code io.walden.architecture.broken}, in the tests) and
 * name the offending classes: a guard that passes everything would otherwise go unnoticed.
 */
class LayoutRulesTest {
    private static final String BROKEN = "io.walden.architecture.broken";

    private static JavaClasses brokenClasses;

    @BeforeAll
    static void importTheBrokenLayout() {
        brokenClasses = new ClassFileImporter().importPackages(BROKEN);
    }

    @Test
    void shouldRefuseStateReachingUpIntoRecovery() {
        final String failure = failureOf(LayoutRules.layeringWithOptionalLayers(BROKEN));
        assertMentions(failure, BROKEN + ".internal.state.Counter.scannedBytes()");
        assertMentions(failure, BROKEN + ".internal.recovery.Scan");
    }

    @Test
    void shouldRefuseTheSpiUsingTheImplementation() {
        final String failure = failureOf(LayoutRules.layeringWithOptionalLayers(BROKEN));
        assertMentions(failure, BROKEN + ".spi.Backend.countedBytes(");
    }

    @Test
    void shouldRefuseTheImplementationUsingTheFacade() {
        final String failure = failureOf(LayoutRules.internalUsesNoFacade(BROKEN));
        assertMentions(failure, BROKEN + ".internal.Engine.callBack(");
    }

    @Test
    void shouldRefuseACycleBetweenInternalPackages() {
        final String failure = failureOf(LayoutRules.noCycles(BROKEN));
        assertMentions(failure, "Cycle detected");
        assertMentions(failure, BROKEN + ".internal.state");
        assertMentions(failure, BROKEN + ".internal.recovery");
    }

    @Test
    void shouldRefuseAPackageWithTooManyClasses() {
        final String failure = failureOf(LayoutRules.packagesHoldAtMost(1));
        assertMentions(failure, "package " + BROKEN + ".internal.recovery holds 2 top-level classes (at most 1)");
    }

    private static String failureOf(final ArchRule rule) {
        return assertThrows(AssertionError.class, () -> rule.check(brokenClasses))
                .getMessage();
    }

    private static void assertMentions(final String failure, final String expected) {
        assertTrue(failure.contains(expected), () -> "expected the failure to mention " + expected + ":\n" + failure);
    }
}
