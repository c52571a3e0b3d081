internal import Crypto
import Foundation

/// Name-based UUIDs (RFC 4122 §4.3, version 5): the same namespace and name always give the same
/// identifier, so whatever is derived from content can be made again on any machine: xAPI
/// statements' ids, and the assignments of an assigned context tree's contexts.
package enum NameBasedUUID {
    /// The namespace of every identifier clsfile derives for xAPI. Fixed forever: changing it would
    /// change every statement id, and a re-sent export would then be new statements.
    package static let xapiNamespace: [UInt8] = [
        0xeb, 0x56, 0x36, 0x47, 0xcf, 0x2d, 0x4f, 0x42, 0x8f, 0x41, 0xae, 0x05, 0xed, 0xcb, 0xc5, 0x13
    ]

    /// The version 5 UUID of a name in a namespace, in lowercase hexadecimal with hyphens.
    /// - Parameters:
    ///   - name: Any bytes; here, UTF-8 text.
    ///   - namespace: The namespace's 16 bytes.
    package static func version5(_ name: some DataProtocol, namespace: [UInt8] = xapiNamespace) -> String {
        var hash = Insecure.SHA1()
        hash.update(data: namespace)
        hash.update(data: name)
        var bytes = Array(hash.finalize().prefix(16))
        bytes[6] = (bytes[6] & 0x0f) | 0x50
        bytes[8] = (bytes[8] & 0x3f) | 0x80
        let hex = bytes.map { String(format: "%02x", $0) }.joined()
        let cuts = [8, 12, 16, 20]
        var text = ""
        for (index, character) in hex.enumerated() {
            if cuts.contains(index) { text.append("-") }
            text.append(character)
        }
        return text
    }

    /// ``version5(_:namespace:)`` of text, as UTF-8.
    package static func version5(_ name: String, namespace: [UInt8] = xapiNamespace) -> String {
        version5(Data(name.utf8), namespace: namespace)
    }
}
