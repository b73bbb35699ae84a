package dev.sluice.api;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks SPI members that may still change, or go, in a later release without an SPI version bump
 * (as Trino's {@code @Experimental}). The API-compatibility check of the build ignores them;
 * everything else in {@code sluice.api} keeps compiled plugins linking until the
 * {@link ProviderPlugin#SPI_VERSION} changes. Use them, but expect to adapt.
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target({ElementType.TYPE, ElementType.METHOD, ElementType.CONSTRUCTOR, ElementType.FIELD, ElementType.RECORD_COMPONENT})
public @interface Experimental {

    /**
     * Why it may change, or what it waits for.
     *
     * @return the note, or empty
     */
    String value() default "";
}
