/// The subject of a context. Raw values are this library's own; the names are ClassKit's.
public struct CLSContextTopic: RawRepresentable, Hashable, Sendable {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public static let math = CLSContextTopic(rawValue: "math")
    public static let science = CLSContextTopic(rawValue: "science")
    public static let literacyAndWriting = CLSContextTopic(rawValue: "literacyAndWriting")
    public static let worldLanguage = CLSContextTopic(rawValue: "worldLanguage")
    public static let socialScience = CLSContextTopic(rawValue: "socialScience")
    public static let computerScienceAndEngineering = CLSContextTopic(rawValue: "computerScienceAndEngineering")
    public static let artsAndMusic = CLSContextTopic(rawValue: "artsAndMusic")
    public static let healthAndFitness = CLSContextTopic(rawValue: "healthAndFitness")
}
