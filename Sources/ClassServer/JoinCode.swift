/// The code a teacher gives students to join a class: 10 characters from 31 that cannot be
/// mistaken for each other when read aloud or copied by hand (no 0/O, 1/I/L), about 50 bits.
enum JoinCode {
    static let alphabet = Array("23456789ABCDEFGHJKMNPQRSTUVWXYZ")

    static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<10).map { _ in alphabet.randomElement(using: &generator)! })
    }
}
