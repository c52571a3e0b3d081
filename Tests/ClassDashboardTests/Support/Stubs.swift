import Foundation
import OpenClassKit
import TestSupport

/// An assignment as a teacher's store records it, with the fields a test cares about.
enum AssignmentFixture {
    static func make(title: String, className: String?) -> Assignment {
        Assignment(
            identifier: "assignment-1", title: title, className: className, documentName: "essay.txt",
            documentDigest: String(repeating: "0", count: 64), teacherKey: Data(count: 32))
    }
}

/// A store that is never opened: constructing a server does not touch it.
enum OpenClassKitStub {
    static func store() -> CLSDataStore {
        CLSDataStore(storeURL: URL(fileURLWithPath: "/nonexistent/clsfile-test/store.sqlite"))
    }
}
