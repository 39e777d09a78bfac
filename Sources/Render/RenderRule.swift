import Markup

/// Whether a page is rendered in a browser: a pure decision from what its static HTML says.
///
/// In `auto`, a page is rendered when it is a client-rendered shell — scripts that would run
/// and either a framework's mount point left empty for them, or almost no visible text.
/// Google renders every page it indexes; Applebot "may render". Rendering costs a browser's
/// CPU and a second of wall time, so a page whose static HTML already reads as a page is
/// not rendered. A `noindex` in the static HTML stops rendering, as it stops Google's.
public enum RenderRule {
    public enum Decision: Sendable, Hashable {
        case render(Reason)
        case skip
    }

    public enum Reason: String, Sendable, Hashable {
        /// `--render always`.
        case asked
        /// A framework root (`#root`, `#app`, `#__next`…) holds nothing for the scripts to fill.
        case emptyMountPoint = "empty-mount-point"
        /// Scripts, and less visible text than a page's furniture holds.
        case littleText = "little-text"
    }

    /// Visible text, in bytes, below which a page that loads scripts is taken for a shell: a
    /// "Loading…" and a `<noscript>` notice fit, a short article does not.
    public static let littleText = 160
    /// Visible text above which even an empty mount point is left alone: the page is written
    /// on the server and only a widget mounts there.
    public static let plentyOfText = 2_000

    public static func decide(_ mode: RenderMode, signals: ScriptSignals, visibleTextBytes: Int, noindex: Bool) -> Decision {
        guard !noindex, mode != .never else { return .skip }
        if mode == .always { return .render(.asked) }
        guard signals.scripts > 0 else { return .skip }
        if signals.emptyMountPoint != nil, visibleTextBytes < plentyOfText { return .render(.emptyMountPoint) }
        if signals.externalScripts > 0, visibleTextBytes < littleText { return .render(.littleText) }
        return .skip
    }

    /// The decision for extracted markup.
    public static func decide(_ mode: RenderMode, markup: PageMarkup, noindex: Bool) -> Decision {
        decide(mode, signals: markup.scriptSignals, visibleTextBytes: markup.visibleText.utf8.count, noindex: noindex)
    }
}
