/// A page that says why there is nothing to show: an unknown address, a missing token, a store
/// that cannot be read.
struct MessagePage {
    var title: String
    var message: String
    var links: Links

    func render() -> HTML {
        PageLayout(
            title: title, trail: [.init(label: "Class", link: links.home), .init(label: title, link: nil)],
            content: """
                <h1 id="message-title">\(title)</h1>
                <p class="empty" id="message">\(message)</p>
                """, source: links.source
        ).render()
    }
}
