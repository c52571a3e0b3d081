import ClassDashboard
import ClassWire
internal import Crypto
import Foundation
import Hummingbird
internal import NIOConcurrencyHelpers
internal import NIOCore

/// The server as an LTI 1.3 tool (1EdTech Security Framework §5.1, LTI Core 1.3): the LMS starts
/// a login at `/lti/login`, the server sends the browser to the platform's authorization endpoint
/// with a `state` and a `nonce` it keeps, and the platform posts the signed `id_token` to
/// `/lti/launch`, which ``LTILaunchVerifier`` checks.
///
/// An instructor's launch opens their course's class (made at the course's first launch): a link
/// to the class's pages, and, until their clsfile is tied to the account, the command that ties
/// it. A learner's launch gives the one command that ties their device to their LMS identity and
/// joins the course's class (`clsfile join URL --lti TOKEN`).
///
/// The state is checked without a cookie: it is a random value whose hash the database keeps
/// with the nonce, taken by the first launch that names it. Where TLS fronts the server the
/// browser also gets a cookie for the login (`SameSite=None; Secure; Partitioned`); a launch that
/// brings login cookies but not its own is refused, one that brings none (a browser blocking
/// third-party cookies) is taken on the state alone.
struct LTIRoutes: Sendable {
    let database: ServerDatabase
    /// The origins the server is reached at: a login's target must be on one of them.
    let audiences: NIOLockedValueBox<Set<ServerOrigin>>
    /// Signs the answers to deep-linking launches.
    let signer: LTISigner
    let verifier = LTILaunchVerifier(keys: LTIPlatformKeys())
    /// How long a login may take from `/lti/login` to `/lti/launch`.
    static let loginLifetime = 10 * 60
    static let launchPath = "/lti/launch"
    static let stateCookiePrefix = "clsfile_lti_state_"

    func add(to router: Router<ServerRequestContext>) {
        let routes = router.group("lti").add(middleware: LTIErrorPageMiddleware())
        routes.get("jwks") { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            headers[.cacheControl] = "max-age=300"
            let keys = try LTIToolKey.keySet(of: try await database.toolKeys())
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: keys)))
        }
        routes.get("login") { request, _ in
            try await login(
                try Self.decoded(
                    LoginFields.self, from: request.uri.query ?? "",
                    refusing: "the query is not the login an LTI platform sends (each of its fields once, percent-encoded)"))
        }
        routes.post("login") { request, _ in
            try await login(try await Self.form(LoginFields.self, of: request))
        }
        let registration = LTIDynamicRegistration(database: database, origins: { [audiences] in audiences.withLockedValue { $0 } })
        routes.get("register") { request, _ in
            try await registration.register(
                try Self.decoded(
                    LTIDynamicRegistration.Fields.self, from: request.uri.query ?? "",
                    refusing: "the query is not the registration an LMS begins (each of its fields once, percent-encoded)"),
                host: request.head.authority)
        }
        routes.post("deep-link") { request, _ in
            try await chose(try await Self.form(ChoiceFields.self, of: request))
        }
        routes.post("launch") { request, _ in
            try await launch(try await Self.form(LaunchFields.self, of: request), cookies: request.headers[values: .cookie])
        }
    }

    /// What a platform sends to begin a login (third-party initiated login, OIDC).
    struct LoginFields: Decodable {
        var iss: String?
        var login_hint: String?
        var target_link_uri: String?
        var lti_message_hint: String?
        var client_id: String?
        var lti_deployment_id: String?
    }

    /// What the platform's authorization endpoint posts back: the launch, or an error.
    struct LaunchFields: Decodable {
        var id_token: String?
        var state: String?
        var error: String?
        var error_description: String?
    }

    private func login(_ fields: LoginFields) async throws -> Response {
        guard let issuer = fields.iss, !issuer.isEmpty, let hint = fields.login_hint, !hint.isEmpty,
            let target = fields.target_link_uri, !target.isEmpty
        else {
            throw ServerError(
                .invalidValue,
                "the login lacks iss, login_hint or target_link_uri, which an LTI 1.3 platform sends: ask the LMS administrator to set the tool's login address to this server's /lti/login"
            )
        }
        let platform = try await database.ltiPlatform(issuer: issuer, clientID: fields.client_id)
        let redirect = try redirectAddress(for: target)
        if let deployment = fields.lti_deployment_id, !platform.deployments.contains(deployment) {
            throw ServerError(
                .unauthorized,
                "the login comes from the deployment \(deployment.prefix(255)), which is not registered with this server: ask the LMS administrator to give it to the server's administrator, who adds it with clsfile-server lti register --issuer \(platform.issuer) --client-id \(platform.clientID) --deployment-id \(deployment.prefix(255))"
            )
        }
        let state = Self.randomToken(bytes: 32), nonce = Self.randomToken(bytes: 24)
        try await database.beginLTILogin(
            LTILogin(platformID: platform.id, nonce: nonce, targetLinkURI: target, deploymentID: fields.lti_deployment_id),
            stateHash: Self.hash(state), lifetime: Self.loginLifetime)
        var query = [
            ("scope", "openid"), ("response_type", "id_token"), ("response_mode", "form_post"), ("prompt", "none"),
            ("client_id", platform.clientID), ("redirect_uri", redirect), ("login_hint", hint), ("state", state), ("nonce", nonce)
        ]
        if let message = fields.lti_message_hint { query.append(("lti_message_hint", message)) }
        guard var components = URLComponents(url: platform.authLoginURL, resolvingAgainstBaseURL: false) else {
            throw ServerError(.invalidValue, "the platform's authorization address \(platform.authLoginURL) does not parse")
        }
        let items = (components.queryItems ?? []) + query.map { URLQueryItem(name: $0.0, value: $0.1) }
        components.queryItems = items
        // A '+' left as it is would read as a space in the platform's query.
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        guard let location = components.url?.absoluteString else {
            throw ServerError(.invalidValue, "the platform's authorization address \(platform.authLoginURL) does not take a query")
        }
        var headers = HTTPFields()
        headers[.location] = location
        headers[.cacheControl] = "no-store"
        if redirect.hasPrefix("https:") {
            headers[.setCookie] =
                "\(Self.stateCookiePrefix)\(Self.cookieSuffix(of: state))=\(state); Path=/lti/; Max-Age=\(Self.loginLifetime); HttpOnly; Secure; SameSite=None; Partitioned"
        }
        return Response(status: .found, headers: headers)
    }

    /// The tool's launch address on the origin of a login's target: the target must be this
    /// server's launch address, on one of its public origins (never elsewhere: an open redirect).
    private func redirectAddress(for target: String) throws -> String {
        try Self.redirectAddress(for: target, origins: audiences.withLockedValue { $0 })
    }

    /// The tool's launch address on the origin of a login's target, which must be on one of
    /// `origins`.
    ///
    /// The address is spelled as the target spells its origin (a default port left out where it
    /// leaves it out), without its query: a platform compares the `redirect_uri` with the
    /// addresses its administrator registered, as text.
    static func redirectAddress(for target: String, origins: Set<ServerOrigin>) throws -> String {
        guard let url = URL(string: target), url.path == launchPath, let origin = try? ServerOrigin(url), origins.contains(origin),
            var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        else {
            throw ServerError(
                .invalidValue,
                "the login's target \(target.prefix(200)) is not this tool's launch address: ask the LMS administrator to set the tool's target link and redirect addresses to the address the server's administrator gave (https://SERVER/lti/launch)"
            )
        }
        components.scheme = components.scheme?.lowercased()
        components.user = nil
        components.password = nil
        components.percentEncodedPath = launchPath
        components.query = nil
        components.fragment = nil
        return components.string ?? origin.value + launchPath
    }

    private func launch(_ fields: LaunchFields, cookies: [String]) async throws -> Response {
        if let error = fields.error {
            throw ServerError(
                .unauthorized,
                "the LMS refused the login: \(error.prefix(100))\(fields.error_description.map { " (\($0.prefix(300)))" } ?? ""); ask the LMS administrator"
            )
        }
        guard let state = fields.state, !state.isEmpty, let idToken = fields.id_token, !idToken.isEmpty else {
            throw ServerError(
                .invalidValue,
                "the launch lacks its id_token or state: start again from the LMS (the launch address takes the LMS's form only)")
        }
        guard let (login, platform, expired) = try await database.takeLTILogin(stateHash: Self.hash(state)) else {
            throw ServerError(
                .unauthorized,
                "the launch's state is not one this server gave, or it was used already: start again from the LMS (each launch serves once)"
            )
        }
        guard !expired else {
            throw ServerError(.unauthorized, "the login took more than 10 minutes before its launch arrived: start again from the LMS")
        }
        try Self.checkCookies(cookies, state: state)
        let verified = try await verifier.verify(idToken, platform: platform, login: login)
        let origin = try ServerOrigin(login.targetLinkURI)
        // The server's address as the LMS spells it (https://SERVER, not https://SERVER:443), for the pages.
        let base = String(
            try Self.redirectAddress(for: login.targetLinkURI, origins: audiences.withLockedValue { $0 }).dropLast(Self.launchPath.count))
        let framing = LTIPage.origin(of: platform.issuer)
        switch verified.role {
        case .instructor:
            let opened = try await database.instructorLaunch(verified, platform: platform)
            let pageToken = try await DeviceToken.make(key: opened.pageKey, audience: origin)
            let pages = "\(base)/classes/\(opened.classID.uuidString.lowercased())/?token=\(pageToken)"
            var link: HTML = ""
            if !opened.isLinked {
                let token = LTILinkToken.random()
                try await database.teacherLinkToken(
                    verified, platform: platform, classID: opened.classID, tokenHash: LTILinkToken.hash(token),
                    lifetime: LTILinkToken.lifetime)
                link = """
                    <h2>Tie your clsfile to this class</h2>
                    <p>Your handouts reach this class once clsfile on your computer, in the teacher role, is tied to your LMS \
                    account. Run this in a terminal there (it works once, within 15 minutes):</p>
                    <pre><code>clsfile join \(base) --lti \(token)</code></pre>
                    <p>Then <code>clsfile register --server \(base)</code> registers your handouts with the class.</p>
                    """
            }
            try await keepResourceLink(verified, platform: platform, classID: opened.classID)
            if let settings = verified.deepLinking {
                return try await chooser(
                    verified, settings: settings, platform: platform, opened: opened, tie: link, framing: framing, base: base)
            }
            let content: HTML = """
                <h1>\(opened.className)</h1>
                <p>You teach this course's class on clsfile, as \(verified.displayName).</p>
                <p><a href="\(pages)" target="_blank" rel="noopener noreferrer">Open the class's pages</a> \
                (in a new window; the link is good for 30 minutes).</p>
                \(link)
                \(try await rosterSection(verified, platform: platform))
                """
            return LTIPage.response(title: opened.className, content: content, framedBy: framing)
        case .learner:
            let token = LTILinkToken.random()
            let joined = try await database.learnerLaunch(
                verified, platform: platform, tokenHash: LTILinkToken.hash(token), lifetime: LTILinkToken.lifetime)
            try await keepResourceLink(verified, platform: platform, classID: joined.classID)
            let status: HTML =
                joined.isLinked
                ? "<p>Your clsfile is tied to this class: the work on its assignments goes to your teacher when you save (<code>clsfile sync</code> sends it at once). To tie another computer, run this there:</p>"
                : "<p>To send your work on this course's assignments to your teacher, run this in a terminal on the computer you write on, with clsfile in the student role (it works once, within 15 minutes):</p>"
            let content: HTML = """
                <h1>\(joined.className)</h1>
                <p>You are in this course's class on clsfile, as \(verified.displayName).</p>
                \(status)
                <pre><code>clsfile join \(base) --lti \(token)</code></pre>
                """
            return LTIPage.response(title: joined.className, content: content, framedBy: framing)
        }
    }

    /// Who of the course's learners has tied a device to the class, as the roster last read says;
    /// the launch asks for the roster again, which the server reads beside it.
    private func rosterSection(_ launch: LTILaunch, platform: LTIPlatform) async throws -> HTML {
        guard let url = launch.membershipsURL else { return "" }
        let roster = try await database.roster(of: launch, platform: platform.id)
        try await database.wantRoster(of: launch, platform: platform.id, at: url)
        if let failure = roster.failure {
            return "<h2>Students</h2><p>The course's roster could not be read from the LMS: \(String(failure.prefix(300)))</p>"
        }
        guard let read = roster.readAt else {
            return
                "<h2>Students</h2><p>The course's roster is being read from the LMS: open clsfile from the course again in a minute to see who has not tied a computer yet.</p>"
        }
        let waiting = roster.learners.filter { !$0.linked }.map(\.name)
        let list: HTML = waiting.isEmpty ? "" : "<p>Not tied yet: \(waiting.joined(separator: ", ")).</p>"
        let formatter = ISO8601DateFormatter()
        return """
            <h2>Students</h2>
            <p>\(String(roster.learners.count - waiting.count)) of \(String(roster.learners.count)) students of the course have \
            tied a computer to the class (the LMS's roster, read at \(formatter.string(from: read))).</p>
            \(list)
            """
    }

    /// The custom parameters a deep link gives its link: the assignment, and how its scores go.
    static let assignmentParameter = "clsfile_assignment"
    static let gradingParameter = "clsfile_grading"
    static let maximumParameter = "clsfile_score_maximum"
    /// How long an instructor may take to choose an assignment.
    static let deepLinkLifetime = 30 * 60

    /// Keeps the link a launch came by when a deep link tied it to an assignment of the class,
    /// with the line item of the launch, so that its students' scores go to the gradebook.
    private func keepResourceLink(_ launch: LTILaunch, platform: LTIPlatform, classID: UUID) async throws {
        guard let link = launch.resourceLinkID, let assignment = launch.custom[Self.assignmentParameter], !assignment.isEmpty else {
            return
        }
        let maximum = launch.custom[Self.maximumParameter].flatMap(Double.init).flatMap { $0 > 0 && $0.isFinite ? $0 : nil } ?? 100
        let grading = launch.custom[Self.gradingParameter] == "FullyGraded" ? "FullyGraded" : "Pending"
        try await database.linkResource(
            link, platform: platform.id, classID: classID, assignment: assignment, lineItem: launch.lineItemURL,
            grading: ServerDatabase.LTIGrading(scoreMaximum: maximum, gradingProgress: grading))
    }

    /// The page of a deep-linking launch: the class's assignments to choose from.
    private func chooser(
        _ launch: LTILaunch, settings: LTIIDToken.DeepLinkingSettings, platform: LTIPlatform,
        opened: ServerDatabase.InstructorLaunch, tie: HTML, framing: String?, base: String
    ) async throws -> Response {
        let handouts = try await database.handoutTitles(ofClass: opened.classID, as: opened.accountID)
        guard !handouts.isEmpty else {
            let content: HTML = """
                <h1>No assignment to add yet</h1>
                <p>\(opened.className) has no assignment on clsfile yet. Make one on your computer with \
                <code>clsfile assign FILE --title TITLE</code> and register it with <code>clsfile register --server URL</code>, \
                then add it to the course again.</p>
                \(tie)
                """
            return LTIPage.response(title: "No assignment yet", content: content, framedBy: framing)
        }
        let id = Self.randomToken(bytes: 32)
        try await database.beginDeepLink(
            ServerDatabase.LTIDeepLink(
                platformID: platform.id, issuer: platform.issuer, clientID: platform.clientID, deploymentID: launch.deploymentID,
                classID: opened.classID, teacherID: opened.accountID, launchURL: base + Self.launchPath,
                returnURL: settings.deepLinkReturnURL, data: settings.data),
            idHash: Self.hash(id), lifetime: Self.deepLinkLifetime)
        let choices = handouts.enumerated().map { index, handout -> HTML in
            """
            <p><label><input type="radio" name="assignment" value="\(handout.identifier)"\(index == 0 ? " checked" : "")> \
            \(handout.title)</label></p>
            """
        }
        let content: HTML = """
            <h1>Add a clsfile assignment to \(opened.className)</h1>
            <form method="post" action="/lti/deep-link">
            <input type="hidden" name="deep_link" value="\(id)">
            \(choices)
            <p><label><input type="checkbox" name="final" value="yes"> Send scores as final grades (the LMS shows them to \
            students at once; otherwise they wait for you as pending)</label></p>
            <p><label>Out of <input type="number" name="maximum" value="100" min="1" max="1000"> points</label></p>
            <p><button type="submit">Add to the course</button></p>
            </form>
            """
        return LTIPage.response(title: "Add an assignment", content: content, framedBy: framing, formAction: "'self'")
    }

    /// What the chooser posts.
    struct ChoiceFields: Decodable {
        var deep_link: String?
        var assignment: String?
        var final: String?
        var maximum: String?
    }

    /// The instructor's choice: the signed answer to the platform (LtiDeepLinkingResponse), which
    /// the browser posts to the platform's return address.
    private func chose(_ fields: ChoiceFields) async throws -> Response {
        guard let id = fields.deep_link, let assignment = fields.assignment, !assignment.isEmpty else {
            throw ServerError(.invalidValue, "choose an assignment: the form lacks deep_link or assignment")
        }
        guard let link = try await database.takeDeepLink(idHash: Self.hash(id)) else {
            throw ServerError(
                .unauthorized, "this choice was sent already or is older than 30 minutes: add the assignment from the LMS again")
        }
        let handouts = try await database.handoutTitles(ofClass: link.classID, as: link.teacherID)
        guard let chosen = handouts.first(where: { $0.identifier == assignment }) else {
            throw ServerError(.notFound, "the class has no assignment \(assignment.prefix(100)): add one from the LMS again")
        }
        let maximum = fields.maximum.flatMap(Double.init).flatMap { (1...1000).contains($0) ? $0 : nil } ?? 100
        let grading = fields.final == "yes" ? "FullyGraded" : "Pending"
        let answer = LTIDeepLinkingResponse(
            clientID: link.clientID, platformIssuer: link.issuer, deploymentID: link.deploymentID,
            item: LTIDeepLinkingResponse.ContentItem(
                title: chosen.title, url: link.launchURL,
                custom: [
                    Self.assignmentParameter: chosen.identifier, Self.gradingParameter: grading,
                    Self.maximumParameter: String(Int(maximum))
                ],
                lineItem: LTIDeepLinkingResponse.LineItem(
                    label: chosen.title, scoreMaximum: maximum, resourceId: chosen.identifier, tag: "clsfile")),
            data: link.data)
        let jwt = try await signer.sign(answer)
        let content: HTML = """
            <h1>Add “\(chosen.title)” to the course</h1>
            <p>Scores go to the LMS's gradebook out of \(String(Int(maximum))) points, \
            \(grading == "FullyGraded" ? "as final grades" : "pending your grading").</p>
            <form method="post" action="\(link.returnURL)">
            <input type="hidden" name="JWT" value="\(jwt)">
            <p><button type="submit">Add to the course</button></p>
            </form>
            """
        return LTIPage.response(
            title: "Add an assignment", content: content, framedBy: LTIPage.origin(of: link.issuer),
            formAction: LTIPage.origin(of: link.returnURL))
    }

    /// Refuses a launch whose browser brought login cookies of this server but not the one of its
    /// own login: the login was begun in another browser. No cookie at all is taken (a browser that
    /// blocks third-party cookies, or a server without TLS, which sets none).
    static func checkCookies(_ headers: [String], state: String) throws {
        let cookies = headers.flatMap { $0.split(separator: ";") }.map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { $0.hasPrefix(stateCookiePrefix) }
        guard !cookies.isEmpty else { return }
        guard cookies.contains("\(stateCookiePrefix)\(cookieSuffix(of: state))=\(state)") else {
            throw ServerError(
                .unauthorized, "this launch was not begun in this browser (its login cookie is not here): start again from the LMS")
        }
    }

    private static func cookieSuffix(of state: String) -> String {
        String(hash(state).map { String(format: "%02x", $0) }.joined().prefix(16))
    }

    static func hash(_ text: String) -> Data { Data(SHA256.hash(data: Data(text.utf8))) }

    static func randomToken(bytes count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }).base64URLEncodedString()
    }

    /// A form body (`application/x-www-form-urlencoded`), decoded.
    private static func form<Fields: Decodable>(_ type: Fields.Type, of request: Request) async throws -> Fields {
        let body = try await request.body.collect(upTo: 64 * 1024)
        return try decoded(
            Fields.self, from: String(buffer: body),
            refusing: "the body is not the form an LTI platform posts (application/x-www-form-urlencoded)")
    }

    /// Form-encoded fields (a body or a query), decoded; what does not decode (a field given
    /// twice, a bad percent-escape) is refused with `refusal`.
    private static func decoded<Fields: Decodable>(_ type: Fields.Type, from text: String, refusing refusal: String) throws -> Fields {
        do {
            return try URLEncodedFormDecoder().decode(Fields.self, from: text)
        } catch {
            throw ServerError(.invalidValue, refusal)
        }
    }
}
