/// How a ``CLSBinaryItem``'s value reads to people. Raw values are ClassKit's.
public enum CLSBinaryValueType: Int, Sendable, CaseIterable {
    /// True or false.
    case trueFalse = 0
    /// Pass or fail.
    case passFail = 1
    /// Yes or no.
    case yesNo = 2
    /// Correct or incorrect.
    case correctIncorrect = 3

    /// The words for `true` and `false` under this type.
    public var labels: (whenTrue: String, whenFalse: String) {
        switch self {
        case .trueFalse: ("true", "false")
        case .passFail: ("pass", "fail")
        case .yesNo: ("yes", "no")
        case .correctIncorrect: ("correct", "incorrect")
        }
    }
}
