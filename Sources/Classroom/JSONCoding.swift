import Foundation

/// The JSON settings of every file Classroom writes: sorted keys and ISO 8601 dates, so that the
/// same content is the same bytes.
public enum JSONCoding {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }()

    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()

    /// One line on why decoding failed: the field's path and the problem.
    public static func describe(_ error: any Error) -> String {
        switch error as? DecodingError {
        case .keyNotFound(let key, let context)?:
            return "field \(path(context.codingPath + [key])) is missing"
        case .typeMismatch(_, let context)?, .valueNotFound(_, let context)?:
            return "field \(path(context.codingPath)) has the wrong type"
        case .dataCorrupted(let context)?:
            return context.codingPath.isEmpty
                ? "it is not valid JSON" : "field \(path(context.codingPath)) is not valid: \(context.debugDescription)"
        default:
            return "\(error)"
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }
}
