/** A strict, bounded JSON reader and writer over plain maps and lists ({@link dev.sluice.toolkit.json.Json}). */
package dev.sluice.toolkit.json;
