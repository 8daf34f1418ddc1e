package io.walden.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.all;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaPackage;
import com.tngtech.archunit.lang.AbstractClassesTransformer;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import com.tngtech.archunit.library.Architectures.LayeredArchitecture;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The rules of wal-core's layout, for a root package: {@code io.walden} for wal-core itself, another
 * root for the broken layout that {@link LayoutRulesTest} checks them against. The layering, bottom
 * to top: {@code internal.state}, {@code internal.segment}, {@code internal.recovery}, {@code
 * internal.io}, {@code internal} (the lifecycle), then {@code internal.append}, {@code
 * internal.read} and {@code internal.truncation}, which may not use each other. The codec SPI ({@code
 * codec}) uses the API only; {@code internal.codec} uses it, {@code format} and {@code state}, and
 * only {@code internal.append} and {@code internal.read} use them. Every internal
 * package may also use the API's value types, {@code format} and {@code spi}, and every one but
 * {@code state} may use {@code internal.events}; {@code format}, {@code spi} and {@code
 * internal.events} use no other internal package. The API package uses them all: that edge is the
 * one accepted cycle.
 */
final class LayoutRules {
    /** The most top-level classes a package may hold. */
    static final int MAX_TOP_LEVEL_CLASSES_PER_PACKAGE = 25;

    private static final String API = "API";
    private static final String FORMAT = "format";
    private static final String SPI = "spi";
    private static final String CODEC = "codec";
    private static final String CODECS = "internal.codec";
    private static final String EVENTS = "internal.events";
    private static final String STATE = "internal.state";
    private static final String SEGMENT = "internal.segment";
    private static final String RECOVERY = "internal.recovery";
    private static final String IO = "internal.io";
    private static final String LIFECYCLE = "internal (lifecycle)";
    private static final String APPEND = "internal.append";
    private static final String READ = "internal.read";
    private static final String TRUNCATION = "internal.truncation";

    private static final String LAYERING_REASON =
            "a package may use only the packages below it (docs/design/testing.md, the layout guard)";

    private LayoutRules() {}

    /** Each package uses only the packages below it (see the class comment); every layer has classes. */
    static ArchRule layering(final String root) {
        return layers(root).because(LAYERING_REASON);
    }

    /** The layering, for a layout that need not have every layer. */
    static ArchRule layeringWithOptionalLayers(final String root) {
        return layers(root).withOptionalLayers(true).because(LAYERING_REASON);
    }

    private static LayeredArchitecture layers(final String root) {
        final String internal = root + ".internal";
        return layeredArchitecture()
                .consideringOnlyDependenciesInLayers()
                .layer(API)
                .definedBy(root)
                .layer(FORMAT)
                .definedBy(root + ".format..")
                .layer(SPI)
                .definedBy(root + ".spi..")
                .layer(CODEC)
                .definedBy(root + ".codec..")
                .layer(CODECS)
                .definedBy(internal + ".codec..")
                .layer(EVENTS)
                .definedBy(internal + ".events..")
                .layer(STATE)
                .definedBy(internal + ".state..")
                .layer(SEGMENT)
                .definedBy(internal + ".segment..")
                .layer(RECOVERY)
                .definedBy(internal + ".recovery..")
                .layer(IO)
                .definedBy(internal + ".io..")
                .layer(LIFECYCLE)
                .definedBy(internal)
                .layer(APPEND)
                .definedBy(internal + ".append..")
                .layer(READ)
                .definedBy(internal + ".read..")
                .layer(TRUNCATION)
                .definedBy(internal + ".truncation..")
                .whereLayer(FORMAT)
                .mayOnlyAccessLayers(API, SPI)
                .whereLayer(SPI)
                .mayOnlyAccessLayers(API, FORMAT)
                .whereLayer(CODEC)
                .mayOnlyAccessLayers(API)
                .whereLayer(CODECS)
                .mayOnlyAccessLayers(API, FORMAT, CODEC, STATE)
                .whereLayer(EVENTS)
                .mayOnlyAccessLayers(API, FORMAT, SPI)
                .whereLayer(STATE)
                .mayOnlyAccessLayers(API, FORMAT, SPI)
                .whereLayer(SEGMENT)
                .mayOnlyAccessLayers(API, FORMAT, SPI, EVENTS, STATE)
                .whereLayer(RECOVERY)
                .mayOnlyAccessLayers(API, FORMAT, SPI, EVENTS, STATE, SEGMENT)
                .whereLayer(IO)
                .mayOnlyAccessLayers(API, FORMAT, SPI, EVENTS, STATE, SEGMENT, RECOVERY)
                .whereLayer(LIFECYCLE)
                .mayOnlyAccessLayers(API, FORMAT, SPI, EVENTS, STATE, SEGMENT, RECOVERY, IO)
                .whereLayer(APPEND)
                .mayOnlyAccessLayers(API, FORMAT, SPI, CODEC, CODECS, EVENTS, STATE, SEGMENT, RECOVERY, IO, LIFECYCLE)
                .whereLayer(READ)
                .mayOnlyAccessLayers(API, FORMAT, SPI, CODEC, CODECS, EVENTS, STATE, SEGMENT, RECOVERY, IO, LIFECYCLE)
                .whereLayer(TRUNCATION)
                .mayOnlyAccessLayers(API, FORMAT, SPI, EVENTS, STATE, SEGMENT, RECOVERY, IO, LIFECYCLE);
    }

    /**
     * The implementation uses the API's value types only, never the facade that calls into it: the
     * API-internal cycle stays one of value types.
     */
    static ArchRule internalUsesNoFacade(final String root) {
        return noClasses()
                .that()
                .resideInAPackage(root + ".internal..")
                .should()
                .dependOnClassesThat()
                .haveFullyQualifiedName(root + ".Wal")
                .orShould()
                .dependOnClassesThat()
                .haveFullyQualifiedName(root + ".WalView")
                .because("the facade calls into the implementation, not the other way round");
    }

    /**
     * No cycle between the internal packages, format and spi; the API package, whose facade calls
     * into all of them, is left out.
     */
    static ArchRule noCycles(final String root) {
        return slices().assignedFrom(new BelowTheApi(root))
                .should()
                .beFreeOfCycles()
                .because("the layers below the API must form no cycle");
    }

    /** No package holds more than the given number of top-level classes. */
    static ArchRule packagesHoldAtMost(final int maxTopLevelClasses) {
        return all(new Packages())
                .should(new HoldAtMost(maxTopLevelClasses))
                .because("a package that grows past that is doing more than one job: split it by job");
    }

    /** One slice per package below the API: the internal packages, format and spi. */
    private static final class BelowTheApi implements SliceAssignment {
        private final String root;

        BelowTheApi(final String root) {
            this.root = root;
        }

        @Override
        public SliceIdentifier getIdentifierOf(final JavaClass javaClass) {
            final String packageName = javaClass.getPackageName();
            if (isOrIsBelow(packageName, root + ".internal")
                    || isOrIsBelow(packageName, root + ".format")
                    || isOrIsBelow(packageName, root + ".spi")) {
                return SliceIdentifier.of(packageName);
            }
            return SliceIdentifier.ignore();
        }

        @Override
        public String getDescription() {
            return "the packages below " + root;
        }

        private static boolean isOrIsBelow(final String packageName, final String parent) {
            return packageName.equals(parent) || packageName.startsWith(parent + ".");
        }
    }

    /** The packages of the imported classes. */
    private static final class Packages extends AbstractClassesTransformer<JavaPackage> {
        Packages() {
            super("packages");
        }

        @Override
        public Iterable<JavaPackage> doTransform(final JavaClasses classes) {
            final Set<JavaPackage> packages = new LinkedHashSet<>();
            for (final JavaClass javaClass : classes) {
                packages.add(javaClass.getPackage());
            }
            return packages;
        }
    }

    /** A package holds at most so many top-level classes (package-info and array types not counted). */
    private static final class HoldAtMost extends ArchCondition<JavaPackage> {
        private static final DescribedPredicate<JavaClass> TOP_LEVEL_CLASS = DescribedPredicate.describe(
                "top-level class",
                javaClass -> javaClass.isTopLevelClass()
                        && !javaClass.isArray()
                        && !javaClass.getSimpleName().equals("package-info"));

        private final int maxTopLevelClasses;

        HoldAtMost(final int maxTopLevelClasses) {
            super("hold at most " + maxTopLevelClasses + " top-level classes");
            this.maxTopLevelClasses = maxTopLevelClasses;
        }

        @Override
        public void check(final JavaPackage javaPackage, final ConditionEvents events) {
            final long topLevelClasses =
                    javaPackage.getClasses().stream().filter(TOP_LEVEL_CLASS).count();
            final boolean satisfied = topLevelClasses <= maxTopLevelClasses;
            events.add(new SimpleConditionEvent(
                    javaPackage,
                    satisfied,
                    "package " + javaPackage.getName() + " holds " + topLevelClasses + " top-level classes (at most "
                            + maxTopLevelClasses + ")"));
        }
    }
}
