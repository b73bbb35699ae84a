package dev.sluice.runtime.anthropic;

/**
 * Where a value sits in a request ({@code messages[2].content[0].source}), kept as its steps and
 * spelled out only when an error names it: nearly every request is valid, and a long conversation
 * would otherwise build several path strings per content block that nobody reads.
 */
final class FieldPath {

    private final FieldPath parent;
    /** The field of this step, or null for an array index. */
    private final String field;
    private final int index;

    private FieldPath(FieldPath parent, String field, int index) {
        this.parent = parent;
        this.field = field;
        this.index = index;
    }

    /** A top-level field ({@code messages}). */
    static FieldPath of(String field) {
        return new FieldPath(null, field, -1);
    }

    /** A field of this object ({@code .content}). */
    FieldPath field(String name) {
        return new FieldPath(this, name, -1);
    }

    /** An element of this array ({@code [3]}). */
    FieldPath index(int i) {
        return new FieldPath(this, null, i);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(32);
        appendTo(sb);
        return sb.toString();
    }

    private void appendTo(StringBuilder sb) {
        if (parent != null) {
            parent.appendTo(sb);
            if (field != null) {
                sb.append('.');
            }
        }
        if (field != null) {
            sb.append(field);
        } else {
            sb.append('[').append(index).append(']');
        }
    }
}
