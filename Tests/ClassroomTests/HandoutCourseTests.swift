import Classroom
import Foundation
import OpenClassKit
import Testing
import TestSupport

/// The course part of a handout for an assigned context: written, read back, and refused when
/// damaged, with a message naming the handout and what to do.
struct HandoutCourseTests {
    static let course = Handout.Course(
        assignedPath: ["algebra", "ch1"], documentPath: ["algebra", "ch1", "notes"],
        contexts: [["algebra"], ["algebra", "ch1"], ["algebra", "ch1", "notes"]].map {
            CourseManifest.Entry(
                data: try! JSONDecoder().decode(
                    CourseManifest.ContextData.self,
                    from: Data(
                        #"{"identifierPath": \#(String(decoding: try! JSONEncoder().encode($0), as: UTF8.self)), "title": "T", "type": "chapter"}"#
                            .utf8)))
        })

    private func handout(_ course: Handout.Course, in scratch: Scratch) throws -> URL {
        let document = try scratch.file("notes.md", "Letters stand for numbers.\n")
        let url = Handout.defaultURL(beside: document)
        try Handout(document: document, title: "Chapter 1: Notes", teacher: Identity(), course: course).write(to: url)
        return url
    }

    @Test func aCourseHandoutReadsBackWithItsContexts() throws {
        let scratch = try Scratch()
        let read = try Handout.read(from: try handout(Self.course, in: scratch))
        #expect(read.course == Self.course && read.assignment.contextPath == ["algebra", "ch1"])
    }

    @Test(arguments: ["document outside", "assigned missing", "a file named", "too deep"])
    func aDamagedCourseIsRefused(_ damage: String) throws {
        let scratch = try Scratch()
        var course = Self.course
        let expected: String
        switch damage {
        case "document outside":
            course.documentPath = ["algebra", "ch2", "notes"]
            expected = "its document's context algebra/ch2/notes is not under the assigned context algebra/ch1"
        case "assigned missing":
            course.contexts.removeLast()
            expected = "its contexts do not include the assigned context and its document's"
        case "a file named":
            course.contexts[0].document = "../../etc/passwd"
            expected = "the context algebra breaks ClassKit's limits or names a file"
        default:
            course.contexts[0].data.identifierPath = Array(repeating: "x", count: 8)
            expected = "the context x/x/x/x/x/x/x/x breaks ClassKit's limits or names a file"
        }
        let url = try handout(course, in: scratch)
        let error = #expect(throws: ClassroomError.self) { try Handout.read(from: url) }
        #expect(error?.message.contains("the handout \(url.path) is damaged: \(expected)") == true, "\(damage): \(error?.message ?? "")")
        #expect(error?.message.contains("ask your teacher for a new copy") == true)
    }
}
