package dev.sluice.runtime.upstream;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.regex.Pattern;

/** Parses IP address literals without ever asking DNS. */
final class IpLiterals {

    private static final Pattern IPV4 = Pattern.compile(
            "((25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)\\.){3}(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)");
    private static final Pattern IPV6_CHARS = Pattern.compile("[0-9A-Fa-f:.]+(%[0-9A-Za-z_.-]+)?");

    private IpLiterals() {
    }

    /**
     * The address of an IP literal.
     *
     * @param s the text
     * @return the address, or null if {@code s} is not an IPv4 or IPv6 literal
     */
    static InetAddress parse(String s) {
        if (s == null) {
            return null;
        }
        boolean v4 = IPV4.matcher(s).matches();
        if (!v4 && !(s.indexOf(':') >= 0 && IPV6_CHARS.matcher(s).matches())) {
            return null;
        }
        try {
            // an IPv4 literal, or text with ':', is parsed as a literal and never looked up in DNS
            InetAddress a = InetAddress.getByName(s);
            return v4 || a instanceof Inet6Address ? a : null;
        } catch (UnknownHostException e) {
            return null;
        }
    }
}
