/// The dashboard's only style sheet, embedded in every page: no file, font or script is fetched.
enum Stylesheet {
    static let css: HTML = """
        :root { color-scheme: light; --ink: #1d1d1f; --muted: #5e5e63; --line: #d2d2d7; --tint: #0a66c2; \
        --done: #1a7030; --warn-bg: #fff4ce; --warn-line: #e0b000; --bar: #e8e8ed; }
        * { box-sizing: border-box; }
        body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; \
        color: var(--ink); background: #f5f5f7; }
        header { background: #fff; border-bottom: 1px solid var(--line); padding: 14px 32px; }
        header .app { font-weight: 600; color: var(--muted); font-size: 13px; letter-spacing: .04em; text-transform: uppercase; }
        nav.trail { font-size: 14px; margin-top: 4px; }
        nav.trail a { color: var(--tint); text-decoration: underline; text-underline-offset: 2px; }
        nav.trail span.sep { color: var(--muted); margin: 0 6px; }
        main { max-width: 1120px; margin: 0 auto; padding: 24px 32px 48px; }
        h1 { font-size: 26px; margin: 0 0 4px; }
        h2 { font-size: 18px; margin: 28px 0 10px; }
        p.meta { color: var(--muted); margin: 0 0 16px; }
        a { color: var(--tint); }
        :focus-visible { outline: 3px solid var(--tint); outline-offset: 2px; }
        .cards { display: flex; flex-wrap: wrap; gap: 12px; margin: 16px 0; }
        .card { background: #fff; border: 1px solid var(--line); border-radius: 10px; padding: 12px 16px; min-width: 160px; }
        .card .label { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .04em; }
        .card .value { font-size: 22px; font-weight: 600; }
        .card .note { color: var(--muted); font-size: 12px; }
        table { width: 100%; border-collapse: collapse; background: #fff; border: 1px solid var(--line); border-radius: 10px; overflow: hidden; }
        th, td { text-align: left; padding: 9px 12px; border-bottom: 1px solid var(--line); vertical-align: top; }
        th { background: #fafafc; font-size: 12px; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; }
        tr:last-child td { border-bottom: none; }
        td.number, th.number { text-align: right; font-variant-numeric: tabular-nums; }
        td.number, td.nowrap, td.average-progress, td.progress { white-space: nowrap; }
        .warning { background: var(--warn-bg); border: 1px solid var(--warn-line); border-radius: 8px; padding: 10px 14px; margin: 12px 0; }
        .warning strong { margin-right: 6px; }
        .badge { display: inline-block; border-radius: 999px; padding: 1px 9px; font-size: 12px; font-weight: 600; }
        .badge.done { background: #e3f4e8; color: var(--done); }
        .badge.open { background: var(--bar); color: var(--muted); }
        .badge.mixed { background: var(--warn-bg); color: #8a6100; }
        .bar { display: inline-block; width: 90px; height: 8px; background: var(--bar); border-radius: 4px; margin-right: 8px; vertical-align: middle; }
        .bar span { display: block; height: 100%; background: var(--tint); border-radius: 4px; }
        .empty { color: var(--muted); background: #fff; border: 1px dashed var(--line); border-radius: 10px; padding: 24px; }
        ul.averages { margin: 0; padding-left: 18px; }
        footer { color: var(--muted); font-size: 12px; margin-top: 32px; }
        .notice { background: #e3f4e8; border: 1px solid var(--done); border-radius: 8px; padding: 10px 14px; margin: 12px 0; }
        .context { display: flex; gap: 12px; align-items: flex-start; }
        .thumbnail { width: 66px; height: 66px; border-radius: 8px; border: 1px solid var(--line); flex: none; }
        .thumbnail.none { display: inline-block; background: var(--bar); }
        .summary { margin-top: 2px; }
        .not-assignable { color: var(--muted); font-style: italic; }
        form.assign input[name=title] { width: 14em; }
        form.assign label { display: block; margin-bottom: 4px; font-size: 13px; }
        #writing-history figure { margin: 12px 0; }
        svg.history-chart { max-width: 100%; height: auto; background: #fff; border: 1px solid var(--line); }
        pre.replay { white-space: pre-wrap; background: #fff; border: 1px solid var(--line); padding: 16px; font: 15px/1.5 system-ui, sans-serif; }
        pre.replay ins { text-decoration: underline 2px; background: #eee; }
        nav.replay-steps a, nav.replay-steps span { margin-right: 12px; }
        .muted { color: var(--muted); }
        """
}
