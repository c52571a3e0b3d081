import Foundation
import OpenClassKit

// The context code of the ClassKit talks of 2018 (004), 2019 (002) and 2020 (000), run against
// OpenClassKit as one small quiz app: a book of chapters and quizzes made through the data store's
// delegate with the 2020 metadata, addition and multiplication quizzes published at launch, and a
// quiz attempt with an answer per question (binary items), a total score (the primary item), time,
// and "done". The talks' calls are kept as spoken, with two changes: `import OpenClassKit`, and
// `try await` where the talks pass a completion handler. Two things differ on Linux and are marked
// where they occur: the predicate is a block (no predicate format strings), and a thumbnail is the
// bytes of a PNG or JPEG file (no CGImage).
//
//     swift run ContextSample [--answers 1,0,1] [--thumbnail FILE]

/// The options of one run.
struct Options {
    /// One answer per question, right (1) or wrong (0).
    var answers: [Bool] = [true, true, false]
    /// A PNG or JPEG of 80 to 330 pixels a side for the quiz, if given.
    var thumbnail: URL?

    init(_ arguments: [String]) throws {
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--answers":
                guard let list = rest.popFirst() else { throw SampleError("--answers needs a list such as 1,0,1") }
                answers = try list.split(separator: ",").map { answer in
                    guard answer == "1" || answer == "0" else {
                        throw SampleError("--answers takes 1 (right) or 0 (wrong), not '\(answer)'")
                    }
                    return answer == "1"
                }
            case "--thumbnail":
                guard let path = rest.popFirst() else { throw SampleError("--thumbnail needs a PNG or JPEG file") }
                thumbnail = URL(fileURLWithPath: path)
            default:
                throw SampleError("unknown argument '\(argument)'; usage: ContextSample [--answers 1,0,1] [--thumbnail FILE]")
            }
        }
    }
}

struct SampleError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The app's one place that makes contexts (2019): the data store asks it for each context of a
/// path that is not in the tree yet, parent first.
final class ContextMaker: CLSDataStoreDelegate, @unchecked Sendable {
    let thumbnail: Data?
    /// What the store asked for, to show that a second run asks nothing.
    private(set) var made: [String] = []

    init(thumbnail: Data?) {
        self.thumbnail = thumbnail
    }

    func createContext(
        forIdentifier identifier: String, parentContext: CLSContext,
        parentIdentifierPath: [String]
    ) -> CLSContext? {
        made.append((parentIdentifierPath + [identifier]).joined(separator: "/"))
        switch identifier {
        case "fun-with-science":
            let book = CLSContext(type: .book, identifier: identifier, title: "Fun with Science")
            // 2020: the book is a container for its chapters, not something a teacher assigns.
            book.isAssignable = false
            return book
        case "measurements":
            let chapter = CLSContext(type: .chapter, identifier: identifier, title: "Measurements")
            chapter.topic = .science
            return chapter
        case "measurements-quiz":
            // 2020: create a context for the activity, then add a summary and a thumbnail.
            let quiz = CLSContext(type: .quiz, identifier: identifier, title: "Measurements Quiz")
            quiz.summary = "A quiz on units of length, mass and time."
            // Linux: PNG or JPEG bytes where ClassKit takes a CGImage made from the file.
            quiz.thumbnail = thumbnail
            // Suggested age 9 to 11 years, and completion time 15 to 20 minutes.
            quiz.suggestedAge = NSRange(location: 9, length: 2)
            quiz.suggestedCompletionTime = NSRange(location: 15, length: 5)
            // The kinds of progress the quiz reports.
            let percent = CLSProgressReportingCapability(kind: .percent, details: "Percentage of the quiz completed")
            let hints = CLSProgressReportingCapability(kind: .quantity, details: "Number of hints used")
            let answers = CLSProgressReportingCapability(kind: .binary, details: "Correct or incorrect for each question")
            let score = CLSProgressReportingCapability(kind: .score, details: "Total score")
            quiz.addProgressReportingCapabilities([percent, hints, answers, score])
            return quiz
        default:
            return nil
        }
    }
}

/// 2018: publish the flat quizzes at launch, adding only those not in the tree yet.
func publishContexts() async throws {
    let addition = CLSContext(type: .quiz, identifier: "addition-quiz", title: "Addition Quiz")
    addition.displayOrder = 0
    let multiplication = CLSContext(type: .quiz, identifier: "multiplication-quiz", title: "Multiplication Quiz")
    multiplication.displayOrder = 1
    var contextsToCreate = [addition.identifier: addition, multiplication.identifier: multiplication]

    let parent = CLSDataStore.shared.mainAppContext
    // Linux: a block predicate where the talk writes `NSPredicate(format: "parent = %@", parent)`.
    let predicate = NSPredicate { context, _ in (context as? CLSContext)?.parent === parent }
    let existing = try await CLSDataStore.shared.contexts(matching: predicate)
    for context in existing {
        contextsToCreate.removeValue(forKey: context.identifier)
    }
    for (_, context) in contextsToCreate {
        parent.addChildContext(context)
    }
    try await CLSDataStore.shared.save()
}

/// 2019: make a context active, start a new attempt, and save.
func beginActivity(identifierPath: [String]) async throws -> CLSContext {
    guard let context = try await CLSDataStore.shared.mainAppContext.descendant(matchingIdentifierPath: identifierPath) else {
        throw SampleError("no context at \(identifierPath.joined(separator: "/"))")
    }
    context.becomeActive()
    let activity = context.createNewActivity()
    activity.start()
    try await CLSDataStore.shared.save()
    return context
}

/// 2018: a student answers a question.
func answer(question: Int, correct: Bool, in context: CLSContext) {
    guard let activity = context.currentActivity else { return }
    let item = CLSBinaryItem(identifier: "question-\(question)", title: "Question \(question)", type: .correctIncorrect)
    item.value = correct
    activity.addAdditionalActivityItem(item)
}

/// 2018: the attempt ends: the total score as the primary item, the timer stopped, saved;
/// 2019: the assigned activity marked done, so the student need not go back to Schoolwork.
func endAttempt(score: Double, maxScore: Double, in context: CLSContext) async throws {
    guard let activity = context.currentActivity else { return }
    let scoreItem = CLSScoreItem(identifier: "total-score", title: "Total Score", score: score, maxScore: maxScore)
    activity.primaryActivityItem = scoreItem
    activity.progress = 1
    activity.stop()
    try await CLSDataStore.shared.save()
    CLSDataStore.shared.completeAllAssignedActivities(matching: context.identifierPath)
    context.resignActive()
}

@main
struct ContextSample {
    static func main() async {
        do {
            let options = try Options(Array(CommandLine.arguments.dropFirst()))
            let thumbnail = try options.thumbnail.map { try Data(contentsOf: $0) }
            let maker = ContextMaker(thumbnail: thumbnail)
            CLSDataStore.shared.delegate = maker
            try await publishContexts()

            // The path comes from the handout's link into the app; the delegate makes what is missing.
            let path = ["fun-with-science", "measurements", "measurements-quiz"]
            _ = try await CLSDataStore.shared.contexts(matchingIdentifierPath: path)
            let quiz = try await beginActivity(identifierPath: path)
            for (index, correct) in options.answers.enumerated() {
                answer(question: index + 1, correct: correct, in: quiz)
            }
            let right = Double(options.answers.filter { $0 }.count)
            try await endAttempt(score: right, maxScore: Double(options.answers.count), in: quiz)

            print("delegate made: \(maker.made.isEmpty ? "nothing" : maker.made.joined(separator: ", "))")
            print("\(quiz.identifierPath.joined(separator: "/")): scored \(Int(right)) of \(options.answers.count)")
        } catch {
            FileHandle.standardError.write(Data("ContextSample: \(error)\n".utf8))
            exit(1)
        }
    }
}
