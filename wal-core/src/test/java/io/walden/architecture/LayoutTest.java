package io.walden.architecture;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The layout guard over wal-core's main classes (not its tests): the layering, no cycles below the
 * API, the facade used by nothing below it, and packages that stay small. See {@link LayoutRules}.
 */
class LayoutTest {
    private static final String ROOT = "io.walden";

    private static JavaClasses mainClasses;

    @BeforeAll
    static void importMainClasses() {
        mainClasses = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
                .importPackages(ROOT);
    }

    @Test
    void eachPackageUsesOnlyThePackagesBelowIt() {
        LayoutRules.layering(ROOT).check(mainClasses);
    }

    @Test
    void theImplementationUsesNoFacade() {
        LayoutRules.internalUsesNoFacade(ROOT).check(mainClasses);
    }

    @Test
    void noCycleBelowTheApi() {
        LayoutRules.noCycles(ROOT).check(mainClasses);
    }

    @Test
    void noPackageHoldsMoreThanItsShareOfClasses() {
        LayoutRules.packagesHoldAtMost(LayoutRules.MAX_TOP_LEVEL_CLASSES_PER_PACKAGE)
                .check(mainClasses);
    }
}
