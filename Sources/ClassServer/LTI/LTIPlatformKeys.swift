internal import AsyncHTTPClient
import Foundation
internal import JWTKit
internal import NIOCore
internal import NIOFoundationCompat
internal import NIOHTTP1

/// The platforms' public keys, fetched from each platform's JWKS address and kept: a launch
/// signed with a key not kept makes one fetch again (a platform that rotated its key), and is
/// refused if the key is still not there.
///
/// Fetches of one platform are one at a time and at most one a second, failed or not, so that
/// launches naming unknown keys cannot make the server fetch without end. A key set is fetched again after an
/// hour whatever it holds, so that a key the platform withdrew stops verifying.
actor LTIPlatformKeys {
    private struct KeySet {
        var keys: [String: Insecure.RSA.PublicKey]
        var fetchedAt: ContinuousClock.Instant
    }

    private var sets: [UUID: KeySet] = [:]
    private var fetching: [UUID: Task<KeySet, any Error>] = [:]
    /// When each platform's keys last failed to be fetched, and why: refused again for a second.
    private var failed: [UUID: (at: ContinuousClock.Instant, error: any Error)] = [:]
    private let clock = ContinuousClock()
    /// The least time between two fetches of a platform's keys.
    private let leastInterval: Duration = .seconds(1)
    private let longestKept: Duration = .seconds(3600)

    /// The platform's key of `kid`, fetching the platform's keys when it is not kept.
    /// - Throws: ``ServerError`` `.unauthorized` when the keys cannot be fetched or read, or do
    ///   not hold `kid` once fetched again.
    func key(_ kid: String, of platform: LTIPlatform) async throws -> Insecure.RSA.PublicKey {
        if let set = sets[platform.id], clock.now - set.fetchedAt < longestKept, let key = set.keys[kid] { return key }
        let set = try await fetch(platform)
        guard let key = set.keys[kid] else {
            throw ServerError(
                .unauthorized,
                "the launch is signed with a key (kid \(kid.prefix(80))) that the LMS does not publish at \(platform.jwksURL.absoluteString): ask the LMS administrator to check the platform's keys, or whether this launch came from the LMS at all"
            )
        }
        return key
    }

    /// The platform's keys fetched again, unless they were fetched less than a second ago; a
    /// fetch under way is shared.
    private func fetch(_ platform: LTIPlatform) async throws -> KeySet {
        if let running = fetching[platform.id] { return try await running.value }
        if let set = sets[platform.id], clock.now - set.fetchedAt < leastInterval { return set }
        if let failure = failed[platform.id], clock.now - failure.at < leastInterval { throw failure.error }
        let task = Task { try await Self.download(platform) }
        fetching[platform.id] = task
        defer { fetching[platform.id] = nil }
        let keys: KeySet
        do {
            keys = try await task.value
        } catch {
            failed[platform.id] = (clock.now, error)
            throw error
        }
        failed[platform.id] = nil
        let set = KeySet(keys: keys.keys, fetchedAt: clock.now)
        sets[platform.id] = set
        return set
    }

    private static func download(_ platform: LTIPlatform) async throws -> KeySet {
        let address = platform.jwksURL.absoluteString
        func refusal(_ why: String, _ error: (any Error)? = nil) -> ServerError {
            ServerError(
                .unauthorized,
                "the server could not read the LMS's keys at \(address): \(why); ask the LMS administrator for the platform's JWKS address, and the server's administrator to register it (clsfile-server lti register --jwks-url)",
                underlyingError: error)
        }
        var request = HTTPClientRequest(url: address)
        request.headers.add(name: "Accept", value: "application/json")
        let body: ByteBuffer
        do {
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
            guard response.status == .ok else { throw refusal("it answered \(response.status.code)") }
            body = try await response.body.collect(upTo: 1 << 20)
        } catch let error as ServerError {
            throw error
        } catch {
            throw refusal("\(error)", error)
        }
        let set: JWKS
        do {
            set = try JSONDecoder().decode(JWKS.self, from: Data(buffer: body))
        } catch {
            throw refusal("it is not a JSON key set (JWKS)", error)
        }
        var keys: [String: Insecure.RSA.PublicKey] = [:]
        for key in set.keys where key.keyType == .rsa && (key.algorithm == nil || key.algorithm == .rs256) {
            guard let kid = key.keyIdentifier?.string, let modulus = key.modulus, let exponent = key.exponent,
                let publicKey = try? Insecure.RSA.PublicKey(modulus: modulus, exponent: exponent)
            else { continue }
            keys[kid] = publicKey
        }
        return KeySet(keys: keys, fetchedAt: ContinuousClock.now)
    }
}
