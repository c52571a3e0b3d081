import Classroom
import Testing

struct AssignmentChoiceTests {
    private let items = [("3f2a9c10-aaaa", "Essay on rivers"), ("3f2b0000-bbbb", "Poem"), ("9e00ffff-cccc", "3f2")]

    private func pick(_ key: String) throws -> String {
        try AssignmentChoice.pick(key, from: items, identifier: \.0, title: \.1, in: "/store").1
    }

    @Test func anIdentifierAPrefixOrATitleNamesOneAssignment() throws {
        #expect(try pick("3f2a9c10-aaaa") == "Essay on rivers")
        #expect(try pick("3F2A") == "Essay on rivers")
        #expect(try pick("essay ON rivers") == "Essay on rivers")
        // A title that is also a prefix of identifiers wins: it names one assignment exactly.
        #expect(try pick("3f2") == "3f2")
    }

    @Test func noMatchAndSeveralMatchesSayWhatToDo() {
        let none = #expect(throws: ClassroomError.self) { try pick("zz") }
        #expect(none?.code == .notAssigned)
        #expect(none?.message == "no assignment 'zz' in /store; `clsfile assignments` lists them")
        let several = #expect(throws: ClassroomError.self) { try pick("3f2a9c10-aaaa".prefix(1).description) }
        #expect(several?.message == "'3' names 2 assignments ('Essay on rivers', 'Poem') in /store; give more of the identifier")
    }
}
