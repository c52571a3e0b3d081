/// The frame of every page: the document head with the embedded style sheet, a header with the
/// trail back to the class, and the content.
package struct PageLayout {
    /// One step of the trail: its label, and where it leads (nil for the page itself).
    package struct Step {
        var label: String
        var link: String?

        package init(label: String, link: String?) {
            self.label = label
            self.link = link
        }
    }

    var title: String
    var trail: [Step]
    var content: HTML
    /// Where the class is read from, which says in the footer how the page updates.
    var source: DashboardPages.Source

    package init(title: String, trail: [Step], content: HTML, source: DashboardPages.Source) {
        self.title = title
        self.trail = trail
        self.content = content
        self.source = source
    }

    /// The footer's link that turns the page's reload on or off, where one is offered.
    private var reloadSwitch: HTML {
        guard let reload = source.reloadSwitch else { return "" }
        return reload.isOn
            ? " This page reloads every \(reload.seconds) s as students work: <a href=\"\(reload.address)\" id=\"reload-switch\">stop reloading</a>."
            : " <a href=\"\(reload.address)\" id=\"reload-switch\">Reload this page every \(reload.seconds) s</a> to follow students as they work."
    }

    package func render() -> HTML {
        let steps = trail.map { step -> HTML in
            if let link = step.link { return "<a href=\"\(link)\">\(step.label)</a>" }
            return "<span aria-current=\"page\">\(step.label)</span>"
        }
        var trailMarkup: [HTML] = []
        for (index, step) in steps.enumerated() {
            if index > 0 { trailMarkup.append("<span class=\"sep\">›</span>") }
            trailMarkup.append(step)
        }
        let refresh: HTML = source.refreshSeconds.map { "\n<meta http-equiv=\"refresh\" content=\"\($0)\">" } ?? ""
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="referrer" content="no-referrer">
            <title>\(title) · clsfile</title>\(refresh)
            <style>
            \(Stylesheet.css)
            </style>
            </head>
            <body>
            <header><div class="app">clsfile · class dashboard</div><nav class="trail">\(trailMarkup)</nav></header>
            <main>
            \(content)
            <footer>\(source.footer)\(reloadSwitch)</footer>
            </main>
            </body>
            </html>

            """
    }
}
