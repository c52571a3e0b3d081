/// What a context stands for. Raw values are ClassKit's.
public enum CLSContextType: Int, Sendable, CaseIterable {
    case none = 0
    case app
    case chapter
    case section
    case level
    case page
    case task
    case challenge
    case quiz
    case exercise
    case lesson
    case book
    case game
    case document
    case audio
    case video
    case course = 16
    case custom = 17
}
