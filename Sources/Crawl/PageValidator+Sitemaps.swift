import Fetch
import Foundation
import WebRules
import WebURL

extension PageValidator {
    /// How many sitemap files `validate` reads for one host: robots.txt's, then the indexes'
    /// children breadth first.
    static let maximumSitemapFiles = 20

    /// The host's sitemaps as the crawler reads them — those robots.txt names (and every
    /// index's children), else the well-known paths — and whether one lists `page`. A
    /// location outside a sitemap's folder is read (robots.txt named the sitemap), but
    /// crawlers that keep the sitemaps.org folder rule drop it: a warning for the owner.
    func sitemapCheck(for page: WebURL, robots: RobotsRules, into report: inout ValidationReport) {
        let named = robots.sitemaps.compactMap(WebURL.init)
        var queue = named.isEmpty ? Sitemap.wellKnownPaths.compactMap { WebURL(page.origin + $0) } : named
        var seen: Set<String> = []
        var listed = false
        while !queue.isEmpty, report.sitemaps.count < Self.maximumSitemapFiles {
            let url = queue.removeFirst()
            guard seen.insert(url.string).inserted else { continue }
            let response = fetch(FetchRequest(url: url.string))
            var file = ValidationReport.SitemapFile(url: url.string, status: response.status, named: named.contains(url))
            guard response.isSuccess else {
                // A well-known path with nothing there is no finding.
                if file.named || ![404, 410].contains(response.status) {
                    file.error = response.error?.message ?? "status \(response.status)"
                    report.sitemaps.append(file)
                }
                continue
            }
            let sitemap = Sitemap(parsing: response.body, url: url, listedByHost: true)
            if let error = sitemap.error {
                if !file.named, (response.contentType ?? "").lowercased().hasPrefix("text/html") { continue }
                file.error = error
                report.sitemaps.append(file)
                continue
            }
            file.kind = sitemap.kind.rawValue
            file.entries = sitemap.entries.count
            file.skipped = sitemap.skipped
            file.outsideFolder = sitemap.outsideFolder
            file.truncated = sitemap.truncated
            if sitemap.kind == .index {
                queue += sitemap.entries.map(\.location).filter { $0.origin == page.origin }
            } else if sitemap.entries.contains(where: { $0.location == page.withoutFragment }) {
                file.listsPage = true
                listed = true
            }
            report.sitemaps.append(file)
        }
        report.listedInSitemap = listed
        for file in report.sitemaps {
            if file.outsideFolder > 0, let url = WebURL(file.url) {
                let folder = url.path[...(url.path.lastIndex(of: "/") ?? url.path.startIndex)]
                report.sitemapNotes.append("\(file.url) lists \(file.outsideFolder) URL(s) outside its folder \(folder): "
                    + "Searchlight reads them because robots.txt names the sitemap, but crawlers that keep the sitemaps.org folder rule drop them")
            }
            if file.truncated { report.sitemapNotes.append("\(file.url) is cut short or malformed: only the entries before the break are read") }
            if let error = file.error { report.sitemapNotes.append("\(file.url): \(error)") }
        }
        if !report.sitemaps.isEmpty, !listed, report.sitemaps.contains(where: { $0.kind != nil && $0.kind != Sitemap.Kind.index.rawValue }) {
            report.sitemapNotes.append("no sitemap of the host lists \(page.string)")
        }
    }
}
