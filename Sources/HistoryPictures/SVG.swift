import Foundation

/// The pieces the charts are drawn with: escaped text, numbers as SVG writes them, and the frame
/// every chart shares (a title and a description for screen readers, `role="img"`).
enum SVG {
    /// Text made safe for element content and quoted attributes.
    static func escape(_ text: String) -> String {
        Markup.escaped(text)
    }

    /// A coordinate with at most one decimal.
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }

    /// An `<svg>` of a given size with its accessible name and description, and the content.
    static func frame(id: String, width: Int, height: Int, title: String, description: String, content: String) -> String {
        """
        <svg xmlns="http://www.w3.org/2000/svg" id="\(escape(id))" class="history-chart" role="img" \
        width="\(width)" height="\(height)" viewBox="0 0 \(width) \(height)" \
        aria-labelledby="\(escape(id))-title \(escape(id))-desc" font-family="sans-serif" font-size="11">\
        <title id="\(escape(id))-title">\(escape(title))</title><desc id="\(escape(id))-desc">\(escape(description))</desc>\
        \(content)</svg>
        """
    }

    /// A hatch pattern, so that two series read apart in black and white.
    static func hatch(id: String) -> String {
        """
        <defs><pattern id="\(escape(id))" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">\
        <rect width="6" height="6" fill="white"/><line x1="0" y1="0" x2="0" y2="6" stroke="black" stroke-width="2"/></pattern></defs>
        """
    }

    /// A rounded-up top for an axis of values up to `maximum`: 1, 2 or 5 times a power of ten.
    static func niceMaximum(_ maximum: Double) -> Double {
        guard maximum > 0, maximum.isFinite else { return 1 }
        let power = pow(10, floor(log10(maximum)))
        for step in [1.0, 2, 5, 10] where step * power >= maximum { return step * power }
        return 10 * power
    }
}
