import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import TestSupport
// The venv is made by PythonPackages, whose default source location is a Testing macro.
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The test LMS of the LTI tests (`Tests/LTIPlatform/lti_platform.py`, on `lti1p3platform`
/// 0.1.8, in the venv the tests use), started against a running tool; it plays the LMS and the
/// browser of each launch, and times the tool's two answers.
final class LTIPlatformHarness: Sendable {
    let process: ServerProcess
    /// Its address, which is also its issuer.
    let url: String

    static let clientID = "clsfile-bench"
    static let deploymentID = "deployment-1"

    /// Starts the harness for the tool at `tool` and waits until it listens.
    init(tool: String, in folder: URL) async throws {
        let root = PythonPackages.packageRoot
        let python = try PythonPackages.python(
            named: "lti-platform", requirements: root.appendingPathComponent("Tests/LTIPlatform/requirements.txt"))
        let toolURL = tool.hasSuffix("/") ? String(tool.dropLast()) : tool
        process = try await ServerProcess(
            program: python.path,
            [
                root.appendingPathComponent("Tests/LTIPlatform/lti_platform.py").path, "--tool-url", toolURL, "--client-id",
                Self.clientID, "--deployment-id", Self.deploymentID
            ],
            environment: [:], in: folder, name: "lti-platform", announcing: "lti-platform listening on ")
        url = process.url
    }

    /// The options of `clsfile-server lti register` for this platform.
    var registration: [String] {
        [
            "--issuer", url, "--client-id", Self.clientID, "--deployment-id", Self.deploymentID, "--auth-login-url", url + "/auth",
            "--auth-token-url", url + "/token", "--jwks-url", url + "/jwks"
        ]
    }

    /// Stops the harness.
    func stop() {
        process.process.signal(SIGTERM)
        _ = process.process.waitBlocking(timeout: 10)
    }

    /// What the harness timed of one launch, in milliseconds.
    struct LaunchTime: Sendable {
        /// The tool's answer to the login initiation.
        var login: Double
        /// The tool's answer to the launch's form post.
        var launch: Double
        /// The whole launch as the harness walks it: login, its own authorization (signing the
        /// id_token), the form post.
        var whole: Double

        /// The time the tool took: its two answers.
        var server: Double { login + launch }
    }

    /// A person launches the tool from the course `course-7b` as the harness's browser (no
    /// cookies, as a browser blocking third-party cookies); the benchmark fails unless the tool
    /// answers with its page.
    func launch(_ sub: String, name: String, role: String) async throws -> LaunchTime {
        try await control("/_test/users", ["sub": sub, "name": name, "roles": [role]])
        try await control("/_test/contexts", ["id": "course-7b", "title": "7B English", "label": "7B"])
        let answer = try await control(
            "/_test/launch",
            [
                "sub": sub, "context": "course-7b", "message": "resource", "resource_link": ["id": "essay-link", "title": "Essay"],
                "cookies": false
            ])
        let page = answer["launch"] as? [String: Any]
        guard page?["status"] as? Int == 200, let timings = answer["timings"] as? [String: Any],
            let login = timings["login_ms"] as? Double, let launch = timings["launch_ms"] as? Double,
            let whole = timings["total_ms"] as? Double
        else {
            LTIBenchmark.arguments.fail(
                "the launch of \(sub) was not answered with the tool's page: \(String(describing: answer).prefix(1500))")
        }
        return LaunchTime(login: login, launch: launch, whole: whole)
    }

    /// A call of the harness's control API, JSON in and out.
    @discardableResult
    private func control(_ path: String, _ body: [String: Any]) async throws -> [String: Any] {
        var request = HTTPClientRequest(url: url + path)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body)))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
        let text = String(buffer: try await response.body.collect(upTo: 16 << 20))
        guard response.status == .ok, let answer = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            LTIBenchmark.arguments.fail("the harness's \(path) answered \(response.status): \(text.prefix(1500))")
        }
        return answer
    }
}
