extension SearchPage {
    /// Colours keep at least 4.5:1 contrast (WCAG AA) against their backgrounds; the layout
    /// is one column on a phone and a header row on a wider window.
    static let style = #"""
        :root { --text: #1a1a1a; --muted: #4d4d4d; --link: #0b57d0; --line: #d0d0d0; --mark: #ffe58a; --star: #7a4f00; --error: #a50e0e; }
        * { box-sizing: border-box; }
        body { margin: 0; font: 16px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "Noto Sans CJK SC", sans-serif;
               color: var(--text); background: #fff; }
        .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
        .top { position: relative; display: flex; flex-wrap: wrap; gap: 12px 24px; align-items: center; padding: 14px 24px;
               border-bottom: 1px solid var(--line); }
        .brand { font-size: 22px; margin: 0; }
        #search-form { flex: 1 1 320px; }
        #q { width: 100%; font-size: 18px; padding: 10px 14px; border: 2px solid var(--muted); border-radius: 24px; color: var(--text); }
        #q:focus { outline: 3px solid var(--link); outline-offset: 2px; }
        .settings { display: flex; gap: 12px; align-items: center; }
        .platform { border: 1px solid var(--line); border-radius: 8px; padding: 5px 10px; margin: 0; display: flex; gap: 12px; align-items: center;
                    white-space: nowrap; }
        .platform legend { float: left; font-size: 14px; color: var(--muted); padding: 0; }
        /* The apps panel opens over the results, so the header never changes height. */
        details { position: relative; }
        summary { cursor: pointer; border: 1px solid var(--line); border-radius: 8px; padding: 5px 10px; white-space: nowrap; }
        .panel { position: absolute; right: 0; top: calc(100% + 8px); z-index: 10; width: 340px; background: #fff; padding: 10px 14px;
                 border: 1px solid var(--line); border-radius: 12px; box-shadow: 0 8px 24px rgb(0 0 0 / 18%); }
        .hint { color: var(--muted); font-size: 14px; margin: 6px 0; }
        #app-list { list-style: none; padding: 0; margin: 4px 0; }
        #app-list li { margin: 2px 0; }
        #add-app label { display: block; font-size: 14px; color: var(--muted); }
        #add-app input { width: 14em; padding: 4px 6px; }
        button { font: inherit; cursor: pointer; }
        main { max-width: 860px; padding: 8px 24px 48px; }
        .status { color: var(--muted); margin: 12px 0; }
        .correction { margin: 0 0 12px; }
        .more { text-align: center; margin: 16px 0; }
        .more button { background: #fff; color: var(--link); border: 2px solid var(--link); border-radius: 8px; padding: 8px 20px; }
        .correction button { background: none; border: none; padding: 0; color: var(--link); text-decoration: underline; font-style: italic; }
        .error { color: var(--error); border: 1px solid var(--error); border-radius: 8px; padding: 8px 12px; }
        .results { list-style: none; padding: 0; margin: 0; }
        .result { display: grid; grid-template-columns: 88px 1fr auto; gap: 4px 16px; padding: 14px 8px; border-bottom: 1px solid var(--line); }
        .result:focus-within { background: #f1f5fe; }
        /* Every result keeps the same gutter: a picture, or the same grey box without one. */
        .thumb { width: 88px; height: 88px; object-fit: cover; border-radius: 10px; background: #eef0f3; grid-row: span 2; }
        .result h2 { font-size: 18px; margin: 0; overflow-wrap: anywhere; }
        .result h2 a { color: var(--link); text-decoration: none; }
        .result h2 a:hover, .result h2 a:focus { text-decoration: underline; }
        .meta { margin: 2px 0; color: var(--muted); font-size: 14px; }
        .stars { color: var(--star); letter-spacing: 1px; }
        .desc { margin: 4px 0; overflow-wrap: anywhere; }
        mark { background: var(--mark); color: var(--text); padding: 0 1px; border-radius: 2px; }
        .app { display: flex; align-items: center; gap: 6px; color: var(--muted); font-size: 14px; margin: 4px 0 0; }
        .icon { display: inline-grid; place-items: center; width: 22px; height: 22px; border-radius: 6px; color: #fff; font-size: 13px; font-weight: 600; }
        .action { grid-column: 3; grid-row: 1 / span 2; align-self: center; background: var(--link); color: #fff; border: none;
                  border-radius: 18px; padding: 8px 16px; white-space: nowrap; }
        .action.web { background: #fff; color: var(--link); border: 2px solid var(--link); }
        .action:focus { outline: 3px solid var(--text); outline-offset: 2px; }
        [dir="rtl"] { text-align: right; }
        @media (max-width: 600px) {
          /* A phone: the name and the settings on one line, the box under them. */
          .top { padding: 8px 12px; gap: 8px; }
          .brand { font-size: 17px; }
          #search-form { order: 3; flex: 1 1 100%; }
          #q { font-size: 17px; padding: 8px 14px; }
          .settings { margin-left: auto; gap: 6px; font-size: 15px; }
          .platform { padding: 3px 6px; gap: 6px; }
          .platform input { margin: 0 3px 0 0; }
          .platform legend, .wide { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
          summary { padding: 3px 6px; }
          details { position: static; }
          .panel { left: 12px; right: 12px; top: calc(100% - 4px); width: auto; }
          main { padding: 0 12px 32px; }
          .status { margin: 8px 0; }
          .result { grid-template-columns: 64px 1fr; }
          .thumb { width: 64px; height: 64px; grid-row: span 1; }
          .action { grid-column: 1 / span 2; grid-row: auto; width: 100%; white-space: normal; }
        }
        """#
}
