import TextUtilities

/// What a page's static HTML says of its scripts: how many would run, and whether a
/// framework's mount point (`<div id="root">`, `#app`, `#__next`, `<app-root>`…) was left
/// without content for them to fill. Read in the same pass as the rest of the markup; a
/// renderer's decision (client-rendered shell or not) is made from these and the text.
public struct ScriptSignals: Sendable, Hashable {
    /// `<script>` elements a browser runs (no `type`, a JavaScript type, or `module`).
    public var scripts = 0
    /// Of them, those loaded from a `src`.
    public var externalScripts = 0
    /// The first mount point left empty (no child element): its id, or its tag name.
    public var emptyMountPoint: String?

    public init() {}

    /// Ids and tags the common client-side frameworks mount into: React's create-react-app
    /// and Vite templates, Vue, Next.js, Nuxt, Gatsby, SvelteKit, Angular.
    static let mountPointIDs: Set<String> = ["root", "app", "__next", "__nuxt", "___gatsby", "svelte", "react-root", "app-root", "main-app"]
    static let mountPointTags: Set<String> = ["app-root"]

    /// The `type` values of scripts a browser runs (HTML's "JavaScript MIME type essence
    /// match", and `module`); absent or empty means JavaScript.
    static func runs(type: String?) -> Bool {
        guard let type = type?.trimmingASCIIWhitespace().lowercased(), !type.isEmpty else { return true }
        return type == "module" || type == "text/javascript" || type == "application/javascript" || type == "application/ecmascript"
            || type == "text/ecmascript" || type == "application/x-javascript" || type == "text/jscript"
    }
}
