#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// Tells the addresses of this machine alone (loopback) from those other machines can reach.
public enum LoopbackAddress {
    /// Whether a host name or address is loopback: `localhost`, `127.0.0.0/8` or `::1`, with or
    /// without brackets. Any other name counts as reachable from elsewhere.
    public static func isLoopback(_ host: String) -> Bool {
        var host = host.lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host == "localhost" || host.hasSuffix(".localhost") { return true }
        var ipv4 = in_addr()
        if inet_pton(AF_INET, host, &ipv4) == 1 {
            return UInt32(bigEndian: ipv4.s_addr) >> 24 == 127
        }
        var ipv6 = in6_addr()
        if inet_pton(AF_INET6, host, &ipv6) == 1 {
            return withUnsafeBytes(of: &ipv6) { bytes in bytes.prefix(15).allSatisfy { $0 == 0 } && bytes[15] == 1 }
        }
        return false
    }

    /// The host part of a `Host` header: `127.0.0.1` of `127.0.0.1:8765`, `[::1]` of `[::1]:8765`.
    static func host(ofAuthority authority: String) -> String {
        if authority.hasPrefix("["), let end = authority.firstIndex(of: "]") {
            return String(authority[...end])
        }
        return String(authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)[0])
    }
}
