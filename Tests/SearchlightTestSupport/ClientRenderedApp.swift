/// The script of a client-rendered app page for the render tests: it fetches a recipe as
/// JSON and writes the title, a Smart App Banner, JSON-LD and an article (with `link`, when
/// given) into the page's `#root`, as a React or Vue shell does.
public enum ClientRenderedApp {
    public static func script(data: String, link: String? = nil) -> [UInt8] {
        let anchor = link.map { "<a href=\"\($0)\">More</a>" } ?? ""
        return Array("""
            fetch('\(data)').then(r => r.json()).then(recipe => {
              document.title = recipe.name;
              const meta = document.createElement('meta');
              meta.name = 'apple-itunes-app';
              meta.content = 'app-id=123456789, app-argument=tarts://recipe/' + recipe.id;
              document.head.appendChild(meta);
              const ld = document.createElement('script');
              ld.type = 'application/ld+json';
              ld.textContent = JSON.stringify({'@context': 'https://schema.org', '@type': 'Recipe', name: recipe.name});
              document.head.appendChild(ld);
              document.getElementById('root').innerHTML = '<article><h1>' + recipe.name + '</h1><p>' + recipe.text + '</p>\(anchor)</article>';
            });
            """.utf8)
    }
}
