@testable import ClassServer
import ClassWire
import clsfile_server
import CommandSupport
import Hummingbird
import Testing

/// Every code of `ServerError` answers with a status and exits with a code chosen for it: a code
/// added to the server fails here until both tables name it.
struct ServerErrorTests {
    @Test func everyCodeHasAnHTTPStatusAndAnExitCode() {
        let codes = ServerError.Code.allCases
        #expect(codes.count == Set(codes).count && codes.count == 16)
        #expect(codes.filter { ServerError.httpStatuses[$0] == nil }.map(\.description) == [])
        #expect(codes.filter { ServerError.exitCodes[$0] == nil }.map(\.description) == [])
        #expect(Set(ServerError.exitCodes.values).isSubset(of: [64, 65, 66, 69, 77]))
    }

    @Test func everyCodeOfTheWireFormatHasAnHTTPStatus() {
        #expect(WireError.Code.allCases.filter { WireError.httpStatuses[$0] == nil }.map(\.description) == [])
        let (status, name, message) = JSONErrorMiddleware<BasicRequestContext>.described(WireError(.unauthorized, "the token has expired"))
        #expect(status == .unauthorized && name == "unauthorized" && message == "the token has expired")
        #expect(JSONErrorMiddleware<BasicRequestContext>.described(WireError(.invalidValue, "a bad address")).0 == .badRequest)
    }

    @Test func refusalsAnswerWithTheirStatus() {
        let rows: [(ServerError.Code, HTTPResponse.Status, Int32)] = [
            (.unauthorized, .unauthorized, 69), (.forbidden, .forbidden, 69), (.notFound, .notFound, 66),
            (.invalidValue, .badRequest, 65), (.invalidAddress, .badRequest, 64), (.tooLarge, .contentTooLarge, 69),
            (.unknownAssignment, .conflict, 69), (.database, .serviceUnavailable, 69), (.unsafeRole, .serviceUnavailable, 77)
        ]
        for (code, status, exit) in rows {
            let error = ServerError(code, "a refusal")
            #expect(error.httpStatus == status, "\(code)")
            #expect(error.exitCode == exit, "\(code)")
            let (answered, name, message) = JSONErrorMiddleware<BasicRequestContext>.described(error)
            #expect(answered == status && name == "\(code)", "\(code)")
            // What the database fails with is not shown: its text is the server's log's.
            #expect(message == (status == .serviceUnavailable ? "the server cannot use its database now; try again later" : "a refusal"))
        }
    }
}
