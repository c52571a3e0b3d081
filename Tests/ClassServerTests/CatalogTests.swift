@testable import ClassServer
import ClassSync
import ClassWire
import Crypto
import Foundation
import Logging
import OpenClassKit
import Testing
import TestSupport

/// The Catalog API against a real `clsfile-server serve` on a private PostgreSQL: every rule
/// refused with its code, every bad token refused, and `clsfile catalog` publishing 10,000
/// contexts, deleting a subtree and publishing again.
@Suite(.serialized)
struct CatalogTests {
    /// A school's server with two publishers, each of their own team.
    struct Catalogs {
        let school: ServerDatabaseTests.School
        let scratch: Scratch
        let server: SyncTests.RunningServer
        let acme = P256.Signing.PrivateKey(), globex = P256.Signing.PrivateKey()

        init() async throws {
            school = try await ServerDatabaseTests.School()
            scratch = try Scratch()
            let (acme, globex) = (self.acme, self.globex)
            try await ServerDatabase.withDatabase(school.owner, logger: .tests) { database in
                _ = try await database.addPublisher(team: "acme", keyIdentifier: "acme-1", publicKey: acme.publicKey)
                _ = try await database.addPublisher(team: "globex", keyIdentifier: "globex-1", publicKey: globex.publicKey)
            }
            server = try await SyncTests.RunningServer(school, in: scratch.url)
        }

        func token(_ team: String = "acme") async throws -> String {
            try await CatalogToken.make(key: team == "acme" ? acme : globex, kid: "\(team)-1", team: team)
        }

        /// A call of the API as acme (or another token), in the development catalog unless told.
        func call(
            _ method: String, _ path: String, query: String = "", environment: String? = "development", body: Data? = nil,
            contentType: String = "application/json", token: String? = nil,
            answersJSON: Bool = true
        ) async throws -> (status: Int, error: SyncWire.ErrorAnswer?, body: Data) {
            let environmentQuery = environment.map { "environment=\($0)" } ?? ""
            let separator = environmentQuery.isEmpty || query.isEmpty ? "" : "&"
            let address = server.url.absoluteString + path + "?" + environmentQuery + separator + query
            let signed: String
            if let token { signed = token } else { signed = try await self.token() }
            return try await URLRequestLike(url: address, method: method, body: body, token: signed, contentType: contentType)
                .send(answersJSON: answersJSON)
        }
    }

    static func context(_ path: [String], _ title: String? = nil, type: String = "chapter", thumbnail: String? = nil) -> [String: Any] {
        var data: [String: Any] = ["identifierPath": path, "title": title ?? path.last ?? "", "type": type]
        if let thumbnail { data["thumbnailId"] = thumbnail }
        return ["data": data]
    }

    static func json(_ contexts: [[String: Any]]) throws -> Data {
        try JSONSerialization.data(withJSONObject: contexts)
    }

    /// The thumbnail of the manifest's units: a PNG of 330 × 330 pixels.
    static let unitImage = TestImages.png(width: 330, height: 330)

    @Test func everyRuleIsRefusedWithItsCode() async throws {
        let catalogs = try await Catalogs()
        func expect(
            _ answer: (status: Int, error: SyncWire.ErrorAnswer?, body: Data), _ status: Int, _ code: String, saying text: String,
            sourceLocation: SourceLocation = #_sourceLocation
        ) {
            #expect(answer.status == status, "\(String(decoding: answer.body, as: UTF8.self))", sourceLocation: sourceLocation)
            #expect(answer.error?.code == code, sourceLocation: sourceLocation)
            #expect(
                answer.error?.message.contains(text) == true, "\(answer.error?.message ?? "no JSON error")", sourceLocation: sourceLocation)
        }
        let tooMany = (0..<201).map { Self.context(["app"] + ($0 == 0 ? [] : ["c\($0)"])) }
        expect(
            try await catalogs.call("POST", "/v1/contexts", body: try Self.json(tooMany)), 400, "TOO_MANY_CONTEXTS",
            saying: "201 contexts, more than 200")
        expect(
            try await catalogs.call("POST", "/v1/contexts", body: try Self.json([Self.context(["app", "ch1"])])), 409, "PARENT_NOT_FOUND",
            saying: "has no parent [\"app\"]")
        let childFirst = [Self.context(["app", "ch1"]), Self.context(["app"], type: "app")]
        expect(
            try await catalogs.call("POST", "/v1/contexts", body: try Self.json(childFirst)), 409, "PARENT_NOT_FOUND",
            saying: "comes later in this request")
        expect(
            try await catalogs.call("POST", "/v1/contexts", body: Data("{\"not\": \"an array\"}".utf8)), 400, "INVALID_VALUE",
            saying: "not a JSON array of contexts")
        expect(
            try await catalogs.call("POST", "/v1/contexts", body: try Self.json([Self.context(["app"], type: "spaceship")])), 400,
            "INVALID_VALUE",
            saying: "spaceship")
        // Values that once crashed the server or reached PostgreSQL: refused as values.
        let lowest = try JSONSerialization.data(withJSONObject: [
            [
                "data": [
                    "identifierPath": ["app"], "title": "A", "type": "app",
                    "displayOrder": Int.min
                ]
            ]
        ])
        expect(try await catalogs.call("POST", "/v1/contexts", body: lowest), 400, "INVALID_VALUE", saying: "displayOrder must be within")
        let nul = try JSONSerialization.data(withJSONObject: [
            [
                "data": [
                    "identifierPath": ["app"], "title": "A", "type": "app",
                    "progressReportingCapabilities": [["kind": "percent", "details": "a\u{0}b"]]
                ]
            ]
        ])
        expect(
            try await catalogs.call("POST", "/v1/contexts", body: nul), 400, "INVALID_VALUE",
            saying: "a capability's details has control characters")
        let cursor = Data("1:a\u{0}b".utf8).base64EncodedString().addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        expect(
            try await catalogs.call("GET", "/v1/contexts", query: "after=\(cursor)"), 400, "INVALID_VALUE",
            saying: "is not a cursor of this server")
        expect(
            try await catalogs.call("GET", "/v1/contexts", environment: nil), 400, "INVALID_ENVIRONMENT", saying: "environment=development")
        expect(try await catalogs.call("GET", "/v1/contexts", environment: "staging"), 400, "INVALID_ENVIRONMENT", saying: "not staging")

        // A tree: parents first, in one request; publishing it again changes nothing.
        let tree = [
            Self.context(["app"], "Rivers", type: "app"), Self.context(["app", "ch1"], thumbnail: "t1"),
            Self.context(["app", "ch1", "q1"], type: "quiz"), Self.context(["app", "ch2"], thumbnail: "t1")
        ]
        let posted = try await catalogs.call("POST", "/v1/contexts", body: try Self.json(tree))
        #expect(posted.status == 200, "\(String(decoding: posted.body, as: UTF8.self))")
        let status = try SyncWire.decoder.decode(CatalogWire.Status.self, from: posted.body)
        #expect(status.count == 4 && status.operation == "contexts.post")
        let again = try SyncWire.decoder.decode(
            CatalogWire.Status.self, from: try await catalogs.call("POST", "/v1/contexts", body: try Self.json(tree)).body)
        #expect(again.count == 0)
        let read = try SyncWire.decoder.decode(
            CatalogWire.Status.self, from: try await catalogs.call("GET", "/v1/status/\(status.id.uuidString)").body)
        #expect(read.id == status.id && read.count == 4)
        expect(
            try await catalogs.call("GET", "/v1/status/\(status.id.uuidString)", token: try await catalogs.token("globex")), 404,
            "NOT_FOUND",
            saying: "your team made no catalog request")
        let page = try SyncWire.decoder.decode(CatalogWire.ContextPage.self, from: try await catalogs.call("GET", "/v1/contexts").body)
        #expect(page.contexts.map(\.data.description.identifierPath) == [["app"], ["app", "ch1"], ["app", "ch2"], ["app", "ch1", "q1"]])
        let small = try SyncWire.decoder.decode(
            CatalogWire.ContextPage.self, from: try await catalogs.call("GET", "/v1/contexts", query: "limit=3").body)
        let rest = try SyncWire.decoder.decode(
            CatalogWire.ContextPage.self,
            from: try await catalogs.call(
                "GET", "/v1/contexts",
                query: "after=\(try #require(small.next).addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")"
            ).body)
        #expect((small.contexts + rest.contexts) == page.contexts && rest.next == nil)

        // Thumbnails: referenced first, PNG or JPEG, 330 × 330.
        let png = TestImages.png(width: 330, height: 330)
        expect(
            try await catalogs.call("POST", "/v1/thumbnails", query: "id=nobody", body: png, contentType: "image/png"), 409,
            "THUMBNAIL_NOT_REFERENCED", saying: "no context of the development catalog references the thumbnail nobody")
        expect(
            try await catalogs.call(
                "POST", "/v1/thumbnails", query: "id=t1", body: TestImages.pngHeader(width: 331, height: 331),
                contentType: "image/png"), 400, "INVALID_THUMBNAIL", saying: "331×331 pixels")
        expect(
            try await catalogs.call(
                "POST", "/v1/thumbnails", query: "id=t1", body: Data("GIF89a".utf8) + Data(count: 64),
                contentType: "image/gif"), 400, "INVALID_THUMBNAIL", saying: "PNG or JPEG")
        expect(
            try await catalogs.call(
                "POST", "/v1/thumbnails", query: "id=t1", body: Data("GIF89a".utf8) + Data(count: 64),
                contentType: "image/png"), 400, "INVALID_THUMBNAIL", saying: "not a PNG or JPEG image")
        expect(
            try await catalogs.call("POST", "/v1/thumbnails", query: "id=t1", body: png, contentType: "image/jpeg"), 400,
            "INVALID_THUMBNAIL", saying: "bytes are image/png, but Content-Type says image/jpeg")
        #expect(try await catalogs.call("POST", "/v1/thumbnails", query: "id=t1", body: png, contentType: "image/png").status == 200)
        let jpeg = TestImages.jpeg(width: 330, height: 330)
        #expect(try await catalogs.call("POST", "/v1/thumbnails", query: "id=t1", body: jpeg, contentType: "image/jpeg").status == 200)
        let fetched = try await catalogs.call("GET", "/v1/thumbnails", query: "id=t1", answersJSON: false)
        #expect(fetched.status == 200 && fetched.body == jpeg)

        // Development and production are apart; another team sees neither.
        let production = try SyncWire.decoder.decode(
            CatalogWire.ContextPage.self, from: try await catalogs.call("GET", "/v1/contexts", environment: "production").body)
        #expect(production.contexts.isEmpty)
        #expect(
            try await catalogs.call(
                "POST", "/v1/contexts", environment: "production", body: try Self.json([Self.context(["other"], type: "app")])
            ).status == 200)
        let stillDevelopment = try SyncWire.decoder.decode(
            CatalogWire.ContextPage.self, from: try await catalogs.call("GET", "/v1/contexts").body)
        #expect(stillDevelopment.contexts.count == 4)
        let globex = try SyncWire.decoder.decode(
            CatalogWire.ContextPage.self,
            from: try await catalogs.call(
                "GET", "/v1/contexts", token: try await catalogs.token("globex")
            ).body)
        #expect(globex.contexts.isEmpty)
        expect(
            try await catalogs.call("DELETE", "/v1/contexts", query: "path=app", token: try await catalogs.token("globex")), 404,
            "NOT_FOUND",
            saying: "has no context app")

        // Deleting ch1 deletes q1; t1 stays while ch2 references it, and goes with ch2.
        let deleted = try SyncWire.decoder.decode(
            CatalogWire.Status.self, from: try await catalogs.call("DELETE", "/v1/contexts", query: "path=app&path=ch1").body)
        #expect(deleted.count == 2)
        #expect(try await catalogs.call("GET", "/v1/thumbnails", query: "id=t1", answersJSON: false).status == 200)
        #expect(try await catalogs.call("DELETE", "/v1/contexts", query: "path=app&path=ch2").status == 200)
        expect(try await catalogs.call("GET", "/v1/thumbnails", query: "id=t1"), 404, "NOT_FOUND", saying: "has no thumbnail t1")
        let left = try SyncWire.decoder.decode(CatalogWire.ContextPage.self, from: try await catalogs.call("GET", "/v1/contexts").body)
        #expect(left.contexts.map(\.data.description.identifierPath) == [["app"]])
        expect(
            try await catalogs.call("DELETE", "/v1/contexts", query: "path=app&path=ch1"), 404, "NOT_FOUND",
            saying: "has no context app/ch1")
        // Several contexts in a DELETE's body: at most 200, each a path.
        let many = try JSONSerialization.data(withJSONObject: ["identifierPaths": (0...200).map { ["x\($0)"] }])
        expect(try await catalogs.call("DELETE", "/v1/contexts", body: many), 400, "TOO_MANY_CONTEXTS", saying: "names 201 contexts")
        expect(
            try await catalogs.call("DELETE", "/v1/contexts", body: Data("{\"identifierPaths\": [[]]}".utf8)), 400, "INVALID_VALUE",
            saying: "1 to 32 identifiers")
        expect(
            try await catalogs.call("DELETE", "/v1/contexts", body: Data("[1, 2]".utf8)), 400, "INVALID_VALUE", saying: "identifierPaths")
        let repeated = [Self.context(["app", "ch3"]), Self.context(["app", "ch3"])]
        expect(
            try await catalogs.call("POST", "/v1/contexts", body: try Self.json(repeated)), 400, "INVALID_VALUE",
            saying: "context 1 repeats the identifierPath app/ch3")
        let both = try JSONSerialization.data(withJSONObject: ["identifierPaths": [["app"], ["nothing"]]])
        let deletedBoth = try SyncWire.decoder.decode(
            CatalogWire.Status.self, from: try await catalogs.call("DELETE", "/v1/contexts", body: both).body)
        #expect(deletedBoth.count == 1)

        // The document of the API is the one kept in the repository.
        let document = try await URLRequestLike(url: catalogs.server.url.absoluteString + "/v1/openapi.yaml", method: "GET", token: nil)
            .send(answersJSON: false)
        let kept = try Data(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("../../Sources/ClassServer/Catalog/catalog-openapi.yaml").standardized)
        #expect(document.status == 200 && document.body == kept)
    }

    @Test func everyBadTokenIsRefusedWithAJSONError() async throws {
        let catalogs = try await Catalogs()
        let now = Date()
        func base64URL(_ data: Data) -> String {
            data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }
        let claims = base64URL(
            Data("{\"iss\":\"acme\",\"iat\":\(Int(now.timeIntervalSince1970)),\"exp\":\(Int(now.timeIntervalSince1970) + 1200)}".utf8))
        let none = base64URL(Data("{\"alg\":\"none\",\"kid\":\"acme-1\"}".utf8)) + "." + claims + "."
        let hsHeader = base64URL(Data("{\"alg\":\"HS256\",\"kid\":\"acme-1\",\"typ\":\"JWT\"}".utf8)) + "." + claims
        let secret = SymmetricKey(data: Data(catalogs.acme.publicKey.pemRepresentation.utf8))
        let hmac = hsHeader + "." + base64URL(Data(HMAC<SHA256>.authenticationCode(for: Data(hsHeader.utf8), using: secret)))
        let cases: [(String, String, String)] = [
            (
                "expired", try await CatalogToken.make(key: catalogs.acme, kid: "acme-1", team: "acme", at: now.addingTimeInterval(-3_600)),
                "expired at"
            ),
            (
                "issued in the future",
                try await CatalogToken.make(key: catalogs.acme, kid: "acme-1", team: "acme", at: now.addingTimeInterval(600)),
                "made in the future"
            ),
            (
                "good for 31 minutes", try await CatalogToken.make(key: catalogs.acme, kid: "acme-1", team: "acme", lifetime: 31 * 60),
                "more than 30 minutes"
            ),
            (
                "good for 5 minutes", try await CatalogToken.make(key: catalogs.acme, kid: "acme-1", team: "acme", lifetime: 5 * 60),
                "less than it must be"
            ),
            ("a wrong kid", try await CatalogToken.make(key: catalogs.acme, kid: "acme-2", team: "acme"), "not registered here"),
            ("a kid of another key", try await CatalogToken.make(key: catalogs.acme, kid: "globex-1", team: "globex"), "does not verify"),
            ("alg none", none, "signed with none, not ES256"),
            ("HS256 with the public key as secret", hmac, "signed with HS256, not ES256"),
            (
                "another team's iss", try await CatalogToken.make(key: catalogs.acme, kid: "acme-1", team: "globex"),
                "is not the team the key acme-1 is registered to"
            ),
            ("a device token", try await DeviceToken.make(key: catalogs.acme, audience: catalogs.server.origin), "names the key"),
            (
                "good for 10²⁰ s", try await CatalogToken.make(key: catalogs.acme, kid: "acme-1", team: "acme", lifetime: 1e20),
                "more than 30 minutes"
            ),
            (
                "a kid with a NUL", base64URL(Data("{\"alg\":\"ES256\",\"kid\":\"acme\\u0000\"}".utf8)) + "." + claims + ".c2ln",
                "names no key (kid)"
            ),
            ("garbage", "not.a.jwt", "is not a JWT")
        ]
        for (name, token, text) in cases {
            let answer = try await catalogs.call("GET", "/v1/contexts", token: token)
            #expect(answer.status == 401, "\(name): \(String(decoding: answer.body, as: UTF8.self))")
            #expect(answer.error?.code == "UNAUTHORIZED", "\(name)")
            #expect(answer.error?.message.contains(text) == true, "\(name): \(answer.error?.message ?? "no JSON error")")
        }
        let missing = try await URLRequestLike(
            url: catalogs.server.url.absoluteString + "/v1/contexts?environment=development", method: "GET",
            token: nil
        ).send()
        #expect(missing.status == 401 && missing.error?.code == "UNAUTHORIZED")
        // A valid token of the other team is good, for its own catalog only.
        #expect(try await catalogs.call("GET", "/v1/contexts", token: try await catalogs.token("globex")).status == 200)
    }

    /// A thumbnail whose header alone is right (a PNG's IHDR or a JPEG's frame header of
    /// 330 × 330, then junk) is refused by the Catalog API and never served; `clsfile catalog`
    /// refuses it in a manifest before it sends anything.
    @Test func aThumbnailThatDoesNotDecodeIsRefused() async throws {
        let catalogs = try await Catalogs()
        let tree = [Self.context(["app"], "Rivers", type: "app"), Self.context(["app", "ch1"], thumbnail: "t1")]
        #expect(try await catalogs.call("POST", "/v1/contexts", body: try Self.json(tree)).status == 200)
        let junk = Data((0..<4_000).map { UInt8(truncatingIfNeeded: $0 &* 37) })
        let damagedPNG = TestImages.pngHeader(width: 330, height: 330) + junk
        for (image, mediaType, format) in [
            (damagedPNG, "image/png", "PNG"),
            (TestImages.jpegHeader(width: 330, height: 330) + junk, "image/jpeg", "JPEG")
        ] {
            let answer = try await catalogs.call("POST", "/v1/thumbnails", query: "id=t1", body: image, contentType: mediaType)
            #expect(answer.status == 400 && answer.error?.code == "INVALID_THUMBNAIL", "\(String(decoding: answer.body, as: UTF8.self))")
            #expect(answer.error?.message.contains("the thumbnail's \(format) data is damaged (") == true, "\(answer.error?.message ?? "")")
        }
        #expect(try await catalogs.call("GET", "/v1/thumbnails", query: "id=t1").status == 404)

        let folder = catalogs.scratch.url
        try damagedPNG.write(to: folder.appendingPathComponent("damaged.png"))
        let manifestURL = folder.appendingPathComponent("damaged.json")
        try Data(
            #"""
            {"contexts": [{"data": {"identifierPath": ["app"], "title": "Rivers", "type": "app"}},
                          {"data": {"identifierPath": ["app", "ch2"], "title": "Chapter 2", "type": "chapter"}, "thumbnail": "damaged.png"}]}
            """#.utf8
        ).write(to: manifestURL)
        let client = try CatalogClient(
            serverURL: catalogs.server.url, team: "acme", kid: "acme-1", key: catalogs.acme, environment: .development)
        let refused = await #expect(throws: SyncError.self) { try await client.publish(try CourseManifest.read(from: manifestURL)) }
        #expect(
            refused?.message.contains("damaged.png: the thumbnail's PNG data is damaged (libpng: ") == true, "\(refused?.message ?? "")")
        #expect(try await Self.published(client).keys.sorted { $0.count < $1.count } == [["app"], ["app", "ch1"]])
    }

    /// A course of 10,000 contexts: a book, 20 units of 10 sections, and exercises spread over
    /// the sections; two units with a thumbnail (one image shared by both), one unit not assignable.
    static func manifest(units: Int = 20, in folder: URL) throws -> (URL, CourseManifest) {
        try unitImage.write(to: folder.appendingPathComponent("unit.png"))
        var contexts: [[String: Any]] = [["data": ["identifierPath": ["rivers"], "title": "Rivers", "type": "book"]]]
        for unit in 0..<units {
            var data: [String: Any] = [
                "identifierPath": ["rivers", "u\(unit)"], "title": "Unit \(unit)", "type": "chapter",
                "summary": "Rivers, part \(unit)", "suggestedAge": [11, 14]
            ]
            if unit == 0 { data["isAssignable"] = false }
            var entry: [String: Any] = ["data": data]
            if unit < 2 { entry["thumbnail"] = "unit.png" }
            if unit == 1 { entry["metadata"] = ["locale": "en_GB", "keywords": ["water", "geography"]] }
            contexts.append(entry)
        }
        let sections = units * 10
        for section in 0..<sections {
            contexts.append([
                "data": [
                    "identifierPath": ["rivers", "u\(section / 10)", "s\(section)"], "title": "Section \(section)",
                    "type": "section", "progressReportingCapabilities": [["kind": "percent"]]
                ]
            ])
        }
        for exercise in 0..<(10_000 - 1 - units - sections) {
            let section = exercise % sections
            contexts.append([
                "data": [
                    "identifierPath": ["rivers", "u\(section / 10)", "s\(section)", "e\(exercise)"],
                    "title": "Exercise \(exercise)", "type": "exercise"
                ]
            ])
        }
        let url = folder.appendingPathComponent("course-\(units).json")
        try JSONSerialization.data(withJSONObject: ["contexts": contexts]).write(to: url)
        return (url, try CourseManifest.read(from: url))
    }

    /// The catalog as a client reads it, by identifier path.
    static func published(_ client: CatalogClient) async throws -> [[String]: CatalogWire.Context] {
        Dictionary(uniqueKeysWithValues: try await client.contexts().map { ($0.data.description.identifierPath, $0) })
    }

    /// Whether a catalog holds exactly a manifest's contexts, each as the manifest describes it.
    static func expectEqual(
        _ catalog: [[String]: CatalogWire.Context], _ manifest: CourseManifest,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(catalog.count == manifest.contexts.count, sourceLocation: sourceLocation)
        let thumbnail = String(
            SHA256.hash(data: unitImage).prefix(16)
                .map { String(format: "%02x", $0) }.joined())
        let differing = manifest.contexts.filter { entry in
            let context = catalog[entry.data.identifierPath]
            return context?.data.description != entry.data || context?.metadata != entry.metadata
                || context?.data.thumbnailId != (entry.thumbnail == nil ? nil : thumbnail)
        }
        #expect(
            differing.isEmpty, "\(differing.count) differ, the first \(differing.first.map { "\($0.data.identifierPath)" } ?? "")",
            sourceLocation: sourceLocation)
    }

    @Test func clsfilePublishesTenThousandContextsAndRepublishesWhatWasDeleted() async throws {
        let catalogs = try await Catalogs()
        let folder = catalogs.scratch.url
        let clsfile = try builtExecutable("clsfile"), server = try builtExecutable("clsfile-server")
        let keyFile = folder.appendingPathComponent("acme-key.pem").path
        let made = try run(clsfile, ["catalog", "keygen", "--out", keyFile], environment: [:])
        #expect(made.status == 0, "\(made.errorOutput)")
        let attributes = try FileManager.default.attributesOfItem(atPath: keyFile)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let kid = try #require(made.output.split(separator: "--kid ").last?.split(separator: " ").first).description
        #expect(try run(clsfile, ["catalog", "keygen", "--out", keyFile], environment: [:]).errorOutput.contains("exists already"))
        let admin = ["DATABASE_URL": catalogs.school.cluster.url(user: "clsfile_owner", password: "owner-secret", database: "clsfile")]
        let added = try run(
            server, ["publisher", "add", "--team", "rivers-press", "--kid", kid, "--public-key", keyFile + ".pub"], environment: admin)
        #expect(added.status == 0, "\(added.errorOutput)")
        #expect(try run(server, ["publisher", "list"], environment: admin).output.contains("rivers-press  \(kid)"))

        let credentials = ["--server", catalogs.server.url.absoluteString, "--team", "rivers-press", "--kid", kid, "--key", keyFile]
        let (manifestURL, manifest) = try Self.manifest(in: folder)
        let key = try P256.Signing.PrivateKey(pemRepresentation: String(contentsOfFile: keyFile, encoding: .utf8))
        let client = try CatalogClient(serverURL: catalogs.server.url, team: "rivers-press", kid: kid, key: key, environment: .development)
        func publish(_ url: URL = manifestURL) throws -> String {
            let published = try run(clsfile, ["catalog", "publish", url.path] + credentials, environment: [:])
            #expect(published.status == 0, "\(published.errorOutput)")
            return published.output
        }

        #expect(try publish().hasPrefix("published 10000 contexts (10000 new or changed), 1 thumbnail; deleted 0 not in the manifest"))
        Self.expectEqual(try await Self.published(client), manifest)
        let production = try CatalogClient(
            serverURL: catalogs.server.url, team: "rivers-press", kid: kid, key: key, environment: .production)
        #expect(try await production.contexts().isEmpty)

        // A unit deleted, with its 10 sections and their exercises; publishing brings it back.
        let unitSize = manifest.contexts.filter { $0.data.identifierPath.starts(with: ["rivers", "u3"]) }.count
        let deleted = try run(clsfile, ["catalog", "delete", "rivers/u3"] + credentials, environment: [:])
        #expect(deleted.output == "deleted \(unitSize) contexts (rivers/u3 and its descendants)\n", "\(deleted.errorOutput)")
        #expect(try await Self.published(client).count == 10_000 - unitSize)
        #expect(try publish().hasPrefix("published 10000 contexts (\(unitSize) new or changed), 1 thumbnail; deleted 0"))
        Self.expectEqual(try await Self.published(client), manifest)
        #expect(try publish().hasPrefix("published 10000 contexts (0 new or changed)"))

        // A manifest without its last unit: the catalog follows it.
        let (smallerURL, smaller) = try Self.manifest(units: 19, in: folder)
        let gone = Set(manifest.contexts.map(\.data.identifierPath)).subtracting(smaller.contexts.map(\.data.identifierPath)).count
        let shrunk = try publish(smallerURL)
        #expect(shrunk.contains("; deleted \(gone) not in the manifest"), "\(shrunk)")
        Self.expectEqual(try await Self.published(client), smaller)

        let listed = try run(clsfile, ["catalog", "list", "rivers/u1"] + credentials, environment: [:])
        #expect(listed.output.hasPrefix("rivers/u1  Unit 1  ("), "\(listed.output.prefix(200))")
        #expect(listed.output.contains("[thumbnail]"))
        // A manifest whose context lacks its parent would have publish prune the parent: refused first.
        let orphan = folder.appendingPathComponent("orphan.json")
        try Data(#"{"contexts": [{"data": {"identifierPath": ["rivers", "u1"], "title": "Unit 1", "type": "chapter"}}]}"#.utf8).write(
            to: orphan)
        let refused = try run(clsfile, ["catalog", "publish", orphan.path] + credentials, environment: [:])
        #expect(refused.status == 64 && refused.errorOutput.contains("has rivers/u1 but not its parent rivers"), "\(refused.errorOutput)")
        Self.expectEqual(try await Self.published(client), smaller)
        let unknown = try run(clsfile, ["catalog", "delete", "rivers/nothing"] + credentials, environment: [:])
        #expect(unknown.status == 65 && unknown.errorOutput.contains("has no context rivers/nothing"), "\(unknown.errorOutput)")
    }
}
