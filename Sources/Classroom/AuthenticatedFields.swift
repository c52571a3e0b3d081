import Foundation

/// The bytes a seal or a signature covers: fields that cannot run into one another, each its
/// length (8 bytes, big-endian) and then its bytes. A newline or any other byte inside one field
/// can never pass for the start of the next.
enum AuthenticatedFields {
    static func encode(_ fields: [Data]) -> Data {
        var bytes = Data()
        for field in fields {
            withUnsafeBytes(of: UInt64(field.count).bigEndian) { bytes.append(contentsOf: $0) }
            bytes.append(field)
        }
        return bytes
    }

    static func encode(_ fields: String...) -> Data {
        encode(fields.map { Data($0.utf8) })
    }
}
