@testable import ClassDashboard
import Logging
import Testing

struct AccessTokenTests {
    @Test func aTokenMatchesOnlyItself() throws {
        let token = try AccessToken("correct-horse-battery-staple")
        #expect(token.matches("correct-horse-battery-staple"))
        #expect(!token.matches("correct-horse-battery-stapl"))
        #expect(!token.matches("correct-horse-battery-staple!"))
        #expect(!token.matches("Correct-horse-battery-staple"))
        #expect(!token.matches(""))
        #expect("\(token)" == "AccessToken(…)")
    }

    @Test func randomTokensAreLongAndDifferent() {
        let tokens = (0..<20).map { _ in AccessToken.random().value }
        #expect(Set(tokens).count == 20)
        for token in tokens {
            #expect(token.count == 43)
            #expect(token.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
            #expect((try? AccessToken(token)) != nil)
        }
    }

    @Test(arguments: ["", "too-short", "has a space in it!", "ünïcödé-token-value", "token?with&query=chars"])
    func aTokenThatCannotTravelInAnAddressIsRefused(text: String) {
        #expect(throws: DashboardError.self) { try AccessToken(text) }
    }

    @Test(arguments: ["127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost", "LOCALHOST", "app.localhost"])
    func loopbackAddresses(host: String) {
        #expect(LoopbackAddress.isLoopback(host))
    }

    @Test(arguments: ["0.0.0.0", "::", "192.168.1.10", "10.0.0.1", "example.com", "128.0.0.1", "::2", "localhost.example.com", ""])
    func addressesOtherMachinesCanReach(host: String) {
        #expect(!LoopbackAddress.isLoopback(host))
    }

    @Test func anAddressOtherThanLoopbackNeedsAToken() throws {
        let store = OpenClassKitStub.store()
        let logger = Logger(label: "dashboard-tests")
        #expect(throws: DashboardError.self) {
            try DashboardServer(store: store, configuration: .init(host: "0.0.0.0", port: 0), logger: logger)
        }
        _ = try DashboardServer(store: store, configuration: .init(host: "0.0.0.0", port: 0, token: .random()), logger: logger)
        _ = try DashboardServer(store: store, configuration: .init(host: "127.0.0.1", port: 0), logger: logger)
    }

    @Test func urlsBracketIPv6AndCarryTheToken() throws {
        let token = try AccessToken("0123456789abcdefXYZ")
        #expect(DashboardServer.Endpoint(host: "::1", port: 8765, token: nil).url == "http://[::1]:8765/")
        #expect(DashboardServer.Endpoint(host: "127.0.0.1", port: 80, token: token).url == "http://127.0.0.1:80/?token=0123456789abcdefXYZ")
    }
}
