/// Reverse-DNS names, the form CoreSpotlight domain identifiers take.
public enum ReverseDNS {
    /// `recipes.example` → `example.recipes`, so that deleting the domain identifier
    /// `example` removes a site's items.
    public static func name(forHost host: String) -> String {
        host.split(separator: ".").reversed().joined(separator: ".")
    }
}
