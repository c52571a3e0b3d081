import Foundation

/// A course of contexts in a file: the Catalog API's context `data` shape, one entry per context,
/// parents before children, each with an optional document. Not part of ClassKit.
///
/// ```json
/// {"contexts": [
///   {"data": {"identifierPath": ["algebra"], "title": "Algebra", "type": "book"}},
///   {"data": {"identifierPath": ["algebra", "ch1"], "title": "Chapter 1", "type": "chapter",
///             "summary": "Variables", "suggestedAge": [11, 14],
///             "progressReportingCapabilities": [{"kind": "percent"}]},
///    "document": "chapter1.md"}
/// ]}
/// ```
///
/// A bare array of entries is read too. `type` and a capability's `kind` are ClassKit's names
/// (`chapter`, `percent`) or raw values; an identifier path starts below the main app context.
public struct CourseManifest: Sendable, Decodable {
    /// One context of the course.
    public struct Entry: Sendable, Decodable {
        public var data: ContextData
        /// A document of the course, relative to the manifest's folder.
        public var document: String?
    }

    /// The Catalog API's description of a context.
    public struct ContextData: Sendable, Decodable {
        public var identifierPath: [String]
        public var title: String
        public var type: CLSContextType
        public var customTypeName: String?
        public var displayOrder: Int?
        public var isAssignable: Bool?
        public var progressReportingCapabilities: [Capability]?
        public var suggestedAge: [Int]?
        public var suggestedCompletionTime: [Int]?
        public var summary: String?
        public var topic: String?
        public var universalLinkURL: URL?

        enum CodingKeys: String, CodingKey {
            case identifierPath, title, type, customTypeName, displayOrder, isAssignable, progressReportingCapabilities,
                 suggestedAge, suggestedCompletionTime, summary, topic, universalLinkURL
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            identifierPath = try container.decode([String].self, forKey: .identifierPath)
            title = try container.decode(String.self, forKey: .title)
            type = try CourseManifest.named(CLSContextType.self, forKey: .type, in: container)
            customTypeName = try container.decodeIfPresent(String.self, forKey: .customTypeName)
            displayOrder = try container.decodeIfPresent(Int.self, forKey: .displayOrder)
            isAssignable = try container.decodeIfPresent(Bool.self, forKey: .isAssignable)
            progressReportingCapabilities = try container.decodeIfPresent([Capability].self, forKey: .progressReportingCapabilities)
            suggestedAge = try container.decodeIfPresent([Int].self, forKey: .suggestedAge)
            suggestedCompletionTime = try container.decodeIfPresent([Int].self, forKey: .suggestedCompletionTime)
            summary = try container.decodeIfPresent(String.self, forKey: .summary)
            topic = try container.decodeIfPresent(String.self, forKey: .topic)
            universalLinkURL = try container.decodeIfPresent(URL.self, forKey: .universalLinkURL)
        }
    }

    /// A kind of progress the context reports.
    public struct Capability: Sendable, Decodable {
        public var kind: CLSProgressReportingCapability.Kind
        public var details: String?

        enum CodingKeys: String, CodingKey { case kind, details }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            kind = try CourseManifest.named(CLSProgressReportingCapability.Kind.self, forKey: .kind, in: container)
            details = try container.decodeIfPresent(String.self, forKey: .details)
        }
    }

    public var contexts: [Entry]

    enum CodingKeys: String, CodingKey { case contexts }

    /// Creates a manifest of entries.
    public init(contexts: [Entry]) {
        self.contexts = contexts
    }

    /// Reads a manifest file.
    /// - Throws: ``CLSError`` `.invalidArgument` naming the file and what is wrong in it.
    public static func read(from url: URL) throws -> CourseManifest {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw CLSError(.invalidArgument, "cannot read the manifest \(url.displayPath): \(error.localizedDescription); check the path")
        }
        do {
            // A bare array of entries, or an object with "contexts".
            let isArray = data.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) } == UInt8(ascii: "[")
            return isArray ? CourseManifest(contexts: try JSONDecoder().decode([Entry].self, from: data))
                : try JSONDecoder().decode(CourseManifest.self, from: data)
        } catch let error as DecodingError {
            throw CLSError(.invalidArgument, "the manifest \(url.displayPath) is not a course manifest: \(describe(error)); see the OpenClassKit documentation for its shape")
        } catch {
            throw CLSError(.invalidArgument, "the manifest \(url.displayPath) is not JSON: \(error.localizedDescription)")
        }
    }

    /// A ClassKit enumeration given by its case name or its raw value.
    static func named<Value: RawRepresentable & CaseIterable, Key: CodingKey>(
        _ type: Value.Type, forKey key: Key, in container: KeyedDecodingContainer<Key>
    ) throws -> Value where Value.RawValue == Int {
        if let raw = try? container.decode(Int.self, forKey: key), let value = Value(rawValue: raw) { return value }
        let name = try container.decode(String.self, forKey: key)
        guard let value = Value.allCases.first(where: { "\($0)".lowercased() == name.lowercased() }) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: container,
                                                   debugDescription: "'\(name)' is none of \(Value.allCases.map { "\($0)" }.joined(separator: ", "))")
        }
        return value
    }

    private static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        }
        switch error {
        case .keyNotFound(let key, let context): return "\(path(context)).\(key.stringValue) is missing"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return "\(path(context)): \(context.debugDescription)"
        @unknown default: return "\(error)"
        }
    }
}

/// What importing a course manifest did.
public struct ContextImport: Sendable, Equatable {
    /// Contexts made, changed, and already as the manifest says.
    public var created = 0
    public var updated = 0
    public var unchanged = 0
    /// Entries that name a document.
    public var documents = 0
}

extension CLSDataStore {
    /// Creates or updates the contexts of a course manifest, in order, and saves them in one
    /// transaction: importing the same manifest again changes nothing. Not part of ClassKit.
    /// - Throws: ``CLSError`` `.invalidArgument` for an entry that comes before its parent or has an
    ///   empty path, `.limits` past ClassKit's limits; nothing is then saved.
    public func importContexts(_ manifest: CourseManifest) async throws -> ContextImport {
        var result = ContextImport()
        for (index, entry) in manifest.contexts.enumerated() {
            var path = entry.data.identifierPath
            if path.first == mainAppContext.identifier { path.removeFirst() }
            guard let identifier = path.last else {
                throw CLSError(.invalidArgument, "entry \(index + 1) of the manifest has an empty identifier path")
            }
            guard let parent = try await mainAppContext.descendant(matchingIdentifierPath: Array(path.dropLast())) else {
                throw CLSError(.invalidArgument, "entry \(index + 1) of the manifest (\(path.joined(separator: "/"))) comes before its parent \(path.dropLast().joined(separator: "/")); list parents first")
            }
            if entry.document != nil { result.documents += 1 }
            if let existing = try await parent.child(identifier) {
                if existing.apply(entry.data) { result.updated += 1 } else { result.unchanged += 1 }
            } else {
                let context = CLSContext(type: entry.data.type, identifier: identifier, title: entry.data.title)
                _ = context.apply(entry.data)
                parent.addChildContext(context)
                result.created += 1
            }
        }
        try await save()
        return result
    }
}

extension CLSContext {
    /// Sets what a manifest entry describes, only where it differs; returns whether anything did.
    func apply(_ data: CourseManifest.ContextData) -> Bool {
        var metadata = ContextMetadata()
        metadata.customTypeName = data.customTypeName
        metadata.displayOrder = data.displayOrder ?? 0
        metadata.topic = data.topic.map(CLSContextTopic.init(rawValue:))
        metadata.summary = data.summary
        metadata.thumbnail = thumbnail
        metadata.isAssignable = data.isAssignable ?? true
        if let age = data.suggestedAge, age.count == 2 { metadata.suggestedAge = NSRange(location: age[0], length: max(0, age[1] - age[0])) }
        if let time = data.suggestedCompletionTime, time.count == 2 {
            metadata.suggestedCompletionTime = NSRange(location: time[0], length: max(0, time[1] - time[0]))
        }
        metadata.capabilities = (data.progressReportingCapabilities ?? []).map { .init(kind: $0.kind.rawValue, details: $0.details) }
        if metadata.capabilities == [.init(kind: 0, details: nil)] { metadata.capabilities = [] }
        metadata.universalLinkURL = data.universalLinkURL
        guard metadata != self.metadata || title != data.title || type != data.type else { return false }
        replace(title: data.title, type: data.type, metadata: metadata)
        return true
    }
}
