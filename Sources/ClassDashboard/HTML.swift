internal import HistoryPictures

/// A piece of HTML in which every interpolated string has been escaped.
///
/// Literal text is markup; an interpolated `String` is text and is escaped, so a student's name or a
/// title can never become markup. Interpolating another `HTML` inserts it as it is.
///
/// ```swift
/// let row: HTML = "<td>\(student.studentName)</td>"   // "<td>&lt;b&gt;Ada</td>" for "<b>Ada"
/// ```
package struct HTML: Sendable, Equatable, ExpressibleByStringInterpolation, CustomStringConvertible {
    /// The markup.
    private(set) var rendered: String

    package init(stringLiteral markup: String) {
        rendered = markup
    }

    package init(stringInterpolation: Interpolation) {
        rendered = stringInterpolation.rendered
    }

    /// Markup from pieces, in order.
    package init(joining pieces: some Sequence<HTML>) {
        rendered = pieces.map(\.rendered).joined()
    }

    package var description: String { rendered }

    /// Markup made elsewhere that escapes its own text: the pictures of `HistoryCharts`.
    init(escapedMarkup: String) {
        rendered = escapedMarkup
    }

    /// Text made safe for an element's content and for a quoted attribute value.
    static func escape(_ text: String) -> String {
        Markup.escaped(text)
    }

    package struct Interpolation: StringInterpolationProtocol {
        var rendered = ""

        package init(literalCapacity: Int, interpolationCount: Int) {
            rendered.reserveCapacity(literalCapacity + interpolationCount * 16)
        }

        package mutating func appendLiteral(_ markup: String) {
            rendered += markup
        }

        package mutating func appendInterpolation(_ text: String) {
            rendered += HTML.escape(text)
        }

        package mutating func appendInterpolation(_ html: HTML) {
            rendered += html.rendered
        }

        package mutating func appendInterpolation(_ pieces: [HTML]) {
            for piece in pieces { rendered += piece.rendered }
        }

        package mutating func appendInterpolation(_ number: Int) {
            rendered += String(number)
        }
    }
}
