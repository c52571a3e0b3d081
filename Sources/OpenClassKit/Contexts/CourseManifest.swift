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
public struct CourseManifest: Sendable, Codable {
    /// One context of the course.
    public struct Entry: Sendable, Equatable, Codable {
        public var data: ContextData
        /// A document of the course, relative to the manifest's folder.
        public var document: String?
        /// The context's thumbnail, a PNG or JPEG of 330 × 330 pixels, relative to the manifest's
        /// folder: what `clsfile catalog publish` uploads.
        public var thumbnail: String?
        /// What the Catalog API says of the context beyond ClassKit's context.
        public var metadata: Metadata?

        /// Creates an entry.
        public init(data: ContextData, document: String? = nil, thumbnail: String? = nil, metadata: Metadata? = nil) {
            self.data = data
            self.document = document
            self.thumbnail = thumbnail
            self.metadata = metadata
        }
    }

    /// The Catalog API's `metadata` of a context: what ClassKit's context does not say.
    public struct Metadata: Sendable, Equatable, Codable {
        /// The content's language and region, such as `en_US`.
        public var locale: String?
        /// The oldest version of the app that shows the context.
        public var minimumBundleVersion: String?
        /// Words that describe the content.
        public var keywords: [String]?
        public var presentableLocales: [String]?
        public var standardsAlignments: [String]?
        public var presentablePaths: [[String]]?

        public init(
            locale: String? = nil, minimumBundleVersion: String? = nil, keywords: [String]? = nil,
            presentableLocales: [String]? = nil, standardsAlignments: [String]? = nil, presentablePaths: [[String]]? = nil
        ) {
            self.locale = locale
            self.minimumBundleVersion = minimumBundleVersion
            self.keywords = keywords
            self.presentableLocales = presentableLocales
            self.standardsAlignments = standardsAlignments
            self.presentablePaths = presentablePaths
        }
    }

    /// The Catalog API's description of a context.
    public struct ContextData: Sendable, Equatable, Codable {
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

        /// Writes the context data with `type` and capability kinds as ClassKit's raw values.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(identifierPath, forKey: .identifierPath)
            try container.encode(title, forKey: .title)
            try container.encode(type.rawValue, forKey: .type)
            try container.encodeIfPresent(customTypeName, forKey: .customTypeName)
            try container.encodeIfPresent(displayOrder, forKey: .displayOrder)
            try container.encodeIfPresent(isAssignable, forKey: .isAssignable)
            try container.encodeIfPresent(progressReportingCapabilities, forKey: .progressReportingCapabilities)
            try container.encodeIfPresent(suggestedAge, forKey: .suggestedAge)
            try container.encodeIfPresent(suggestedCompletionTime, forKey: .suggestedCompletionTime)
            try container.encodeIfPresent(summary, forKey: .summary)
            try container.encodeIfPresent(topic, forKey: .topic)
            try container.encodeIfPresent(universalLinkURL, forKey: .universalLinkURL)
        }

        /// Describes a context of a data store's tree as the manifest does, with its identifier
        /// path below the main app context (its thumbnail is left out).
        public init(describing context: CLSContext) {
            identifierPath = Array(context.identifierPath.dropFirst())
            title = context.title
            type = context.type
            customTypeName = context.customTypeName
            displayOrder = context.displayOrder == 0 ? nil : context.displayOrder
            isAssignable = context.isAssignable ? nil : false
            let capabilities = context.progressReportingCapabilities
            progressReportingCapabilities =
                capabilities == [CLSProgressReportingCapability(kind: .duration, details: nil)]
                ? nil
                : capabilities.sorted { ($0.kind.rawValue, $0.details ?? "") < ($1.kind.rawValue, $1.details ?? "") }
                    .map { Capability(kind: $0.kind, details: $0.details) }
            func bounds(_ range: NSRange) -> [Int]? {
                range.length < ContextMetadata.noLimits.length ? [range.location, range.location + range.length] : nil
            }
            suggestedAge = bounds(context.suggestedAge)
            suggestedCompletionTime = bounds(context.suggestedCompletionTime)
            summary = context.summary
            topic = context.topic?.rawValue
            universalLinkURL = context.universalLinkURL
        }
    }

    /// A kind of progress the context reports.
    public struct Capability: Sendable, Equatable, Codable {
        public var kind: CLSProgressReportingCapability.Kind
        public var details: String?

        enum CodingKeys: String, CodingKey { case kind, details }

        /// Creates a capability.
        public init(kind: CLSProgressReportingCapability.Kind, details: String?) {
            self.kind = kind
            self.details = details
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(kind.rawValue, forKey: .kind)
            try container.encodeIfPresent(details, forKey: .details)
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            kind = try CourseManifest.named(CLSProgressReportingCapability.Kind.self, forKey: .kind, in: container)
            details = try container.decodeIfPresent(String.self, forKey: .details)
        }
    }

    public var contexts: [Entry]
    /// The folder that documents are relative to: the manifest's own, when read from a file;
    /// else nil, for the current directory.
    public var folder: URL?

    enum CodingKeys: String, CodingKey { case contexts }

    public init(from decoder: any Decoder) throws {
        contexts = try decoder.container(keyedBy: CodingKeys.self).decode([Entry].self, forKey: .contexts)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(contexts, forKey: .contexts)
    }

    /// Creates a manifest of entries.
    /// - Parameters:
    ///   - contexts: The entries, parents first.
    ///   - folder: The folder that documents are relative to; the current directory when nil.
    public init(contexts: [Entry], folder: URL? = nil) {
        self.contexts = contexts
        self.folder = folder
    }

    /// Reads a manifest file.
    /// - Throws: ``CLSError`` `.invalidArgument` naming the file and what is wrong in it.
    public static func read(from url: URL) throws -> CourseManifest {
        let data = try contents(of: url)
        guard data.contains(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) else {
            throw CLSError(
                .invalidArgument,
                "the manifest \(url.displayPath) is empty; write its contexts as JSON (see the OpenClassKit documentation)")
        }
        do {
            // A bare array of entries, or an object with "contexts".
            let isArray = data.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) } == UInt8(ascii: "[")
            var manifest =
                isArray
                ? CourseManifest(contexts: try JSONDecoder().decode([Entry].self, from: data))
                : try JSONDecoder().decode(CourseManifest.self, from: data)
            manifest.folder = url.deletingLastPathComponent()
            return manifest
        } catch let error as DecodingError {
            throw CLSError(
                .invalidArgument,
                "the manifest \(url.displayPath) is not a course manifest: \(describe(error)); see the OpenClassKit documentation for its shape"
            )
        } catch {
            throw CLSError(.invalidArgument, "the manifest \(url.displayPath) is not JSON: \(error.localizedDescription)")
        }
    }

    /// The most bytes a manifest may have: 10,000 contexts take a few megabytes.
    public static let maximumSize = 64 << 20

    /// The bytes of a manifest file: a regular file of at most ``maximumSize`` bytes (a FIFO or a
    /// device would never end).
    private static func contents(of url: URL) throws -> Data {
        func refuse(_ problem: String) -> CLSError {
            CLSError(.invalidArgument, "cannot read the manifest \(url.displayPath): \(problem)")
        }
        // Non-blocking, so that opening a FIFO does not wait for a writer.
        let descriptor = url.withUnsafeFileSystemRepresentation { path in path.map { open($0, O_RDONLY | O_CLOEXEC | O_NONBLOCK) } ?? -1 }
        guard descriptor >= 0 else { throw refuse("\(String(cString: strerror(errno))); check the path") }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw refuse("it is not a regular file; give the manifest's JSON file")
        }
        guard info.st_size <= maximumSize else {
            throw refuse("it has \(info.st_size) bytes; a manifest has at most \(maximumSize) (split the course)")
        }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var filled = 0
        while filled < bytes.count {
            let count = bytes.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress! + filled, $0.count - filled) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw refuse(String(cString: strerror(errno))) }
            if count == 0 { break }
            filled += count
        }
        return Data(bytes.prefix(filled))
    }

    /// A ClassKit enumeration given by its case name or its raw value.
    static func named<Value: RawRepresentable & CaseIterable, Key: CodingKey>(
        _ type: Value.Type, forKey key: Key, in container: KeyedDecodingContainer<Key>
    ) throws -> Value where Value.RawValue == Int {
        if let raw = try? container.decode(Int.self, forKey: key), let value = Value(rawValue: raw) { return value }
        let name = try container.decode(String.self, forKey: key)
        guard let value = Value.allCases.first(where: { "\($0)".lowercased() == name.lowercased() }) else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: container,
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
            let place = path(context)
            return place.isEmpty ? context.debugDescription : "\(place): \(context.debugDescription)"
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
    /// Documents tied to their context by this import (the others were tied already, or missing).
    public var documentsTied = 0
    /// Why named documents could not be tied, one message each, naming the document: their
    /// contexts were imported; import again once the files are there.
    public var documentProblems: [String] = []
}

extension CLSDataStore {
    /// Creates or updates the contexts of a course manifest, in order, and saves them in one
    /// transaction; then ties each named document to its context, so that the document's work is
    /// recorded there (what was recorded for it before moves along), wherever it is opened from.
    /// Importing the same manifest again changes nothing. Not part of ClassKit.
    /// - Throws: ``CLSError`` `.invalidArgument` for an entry that comes before its parent or has an
    ///   empty path (nothing is then saved), or for a document named by two contexts; `.limits`
    ///   past ClassKit's limits (nothing is saved).
    public func importContexts(_ manifest: CourseManifest) async throws -> ContextImport {
        var result = ContextImport()
        var documents: [(name: String, context: CLSContext)] = []
        for (index, entry) in manifest.contexts.enumerated() {
            var path = entry.data.identifierPath
            if path.first == mainAppContext.identifier { path.removeFirst() }
            guard let identifier = path.last else {
                throw CLSError(.invalidArgument, "entry \(index + 1) of the manifest has an empty identifier path")
            }
            guard let parent = try await mainAppContext.descendant(matchingIdentifierPath: Array(path.dropLast())) else {
                throw CLSError(
                    .invalidArgument,
                    "entry \(index + 1) of the manifest (\(path.joined(separator: "/"))) comes before its parent \(path.dropLast().joined(separator: "/")); list parents first"
                )
            }
            let context: CLSContext
            if let existing = try await parent.child(identifier) {
                if existing.apply(entry.data) { result.updated += 1 } else { result.unchanged += 1 }
                context = existing
            } else {
                context = CLSContext(type: entry.data.type, identifier: identifier, title: entry.data.title)
                _ = context.apply(entry.data)
                parent.addChildContext(context)
                result.created += 1
            }
            if let document = entry.document { documents.append((document, context)) }
        }
        try await save()
        result.documents = documents.count
        for (name, context) in documents {
            let url = URL(fileURLWithPath: name, relativeTo: manifest.folder)
            let file: FileIdentity
            do { file = try FileIdentity(resolving: url) } catch {
                result.documentProblems.append(
                    "\(context.identifierPath.dropFirst().joined(separator: "/")): \((error as? CLSError)?.message ?? "\(error)")")
                continue
            }
            guard let contextID = context.rowID else {
                result.documentProblems.append("\(context.identifierPath.dropFirst().joined(separator: "/")): its context was not saved")
                continue
            }
            if try await tie(file, to: contextID, context) { result.documentsTied += 1 }
        }
        return result
    }

    /// Ties a file to a context of the tree, as a course manifest's document is: the file's
    /// activity is then the context's, wherever the file is opened from and when it is moved, and
    /// what was recorded for the file before moves along. Not part of ClassKit.
    /// - Parameters:
    ///   - url: The document, a regular file.
    ///   - context: A saved context of this data store's tree, other than the main app context.
    /// - Returns: False when the file was tied to the context already.
    /// - Throws: ``CLSError`` `.invalidArgument` for a URL that names no regular file, or a file
    ///   tied to another context; `.invalidCreate` for a context not saved in this store.
    @discardableResult
    public func tieDocument(_ url: URL, to context: CLSContext) async throws -> Bool {
        let file = try FileIdentity(resolving: url)
        guard context !== mainAppContext, context.tree === contextTree, let contextID = context.rowID else {
            throw CLSError(
                .invalidCreate,
                "\(url.displayPath) cannot be tied to \(context.identifierPath.joined(separator: "/")): the context is not saved in \(storeURL.path); save it first",
                object: context)
        }
        return try await tie(file, to: contextID, context)
    }

    private func tie(_ file: FileIdentity, to contextID: Int64, _ context: CLSContext) async throws -> Bool {
        guard try await storage.bindDocument(file, toContext: contextID) else { return false }
        context.tieDocument(at: file.path)
        return true
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
        if let age = data.suggestedAge, age.count == 2 {
            metadata.suggestedAge = NSRange(location: age[0], length: max(0, age[1] - age[0]))
        }
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
