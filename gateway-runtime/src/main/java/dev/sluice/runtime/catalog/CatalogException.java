package dev.sluice.runtime.catalog;

/** A model's figures that cannot be accepted; {@link #path()} names the figure. */
public final class CatalogException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final String path;

    CatalogException(String path, String message) {
        super(message);
        this.path = path;
    }

    /** @return the offending figure's path, e.g. {@code models.openai/gpt-4o.contextWindow} */
    public String path() {
        return path;
    }
}
