import Markup
import Testing
import WebURL

/// The page's main content (issue 26): the article, without the menus, sidebars, "you may
/// also like" blocks, share bars, cookie notices and footers around it.
@Suite struct MainTextTests {
    static func extract(_ html: String) -> PageMarkup {
        MarkupExtractor().extract(Array(html.utf8), url: WebURL("https://shop.example/p/trail-runner"), response: .init(contentType: "text/html; charset=utf-8"))
    }

    @Test func aShopPageIsItsProductNotItsMenusSidebarsAndFooter() {
        let page = Fixture.extract("pages/shop-boilerplate.html", url: "https://shop.example/p/trail-runner-3")
        let text = page.bodyText
        #expect(text.hasPrefix("A light trail shoe"), "the article, without the headline that repeats the title: \(text.prefix(80))")
        #expect(text.contains("rock plate under the forefoot"))
        #expect(text.contains("Barolo red"), "soft hyphens are gone: \(text)")
        for boilerplate in ["cookies", "Skip to content", "Jackets", "Best sellers", "Storm rain jacket", "Free shipping", "You may also like",
                            "Trail socks", "Share this", "Innsbruck", "Foto:", "Enable JavaScript"] {
            #expect(!text.contains(boilerplate), "\(boilerplate) is boilerplate")
        }
        #expect(page.visibleText.contains("Best sellers"), "the visible text (for near-duplicates) still has everything")
        let verdicts = Dictionary(page.mainText.explained().map { ($0.text, $0.verdict) }, uniquingKeysWith: { a, _ in a })
        #expect(verdicts["Best sellers"] == .outsideContent || verdicts["Best sellers"] == .boilerplateHint)
        #expect(verdicts["Share this on Facebook, Twitter or Pinterest"] == .boilerplateHint)
        #expect(verdicts["Foto: Peak Outfitters"] == .caption)
    }

    /// A forum thread is its posts, not its longest one; a Drupal field whose label is hidden
    /// is still the article.
    @Test func aThreadIsAllItsPostsAndADrupalFieldIsText() {
        let long = String(repeating: "The cat brings moss, grass and burrs in from the garden, and the long fur holds all of it. ", count: 4)
        let posts = ["Brush him twice a week, it helps a lot.", "Ours sheds most in spring, then it calms down again.", "A rubber glove works better than a brush for us."]
        let thread = ([long] + posts).enumerated().map { index, text in
            "<article class=\"message message--post\"><div class=\"message-inner\"><div class=\"message-cell\"><a href=\"/members/\(index)\">member\(index)</a></div>"
                + "<div class=\"message-cell message-cell--main\"><div class=\"message-main\"><article class=\"message-body\"><div class=\"bbWrapper\">\(text)</div>"
                + "</article></div></div></div></article>"
        }.joined()
        let page = Self.extract("<html><body><nav><a href=\"/\">Forum</a></nav><div class=\"block-body\">\(thread)</div><footer>Impressum</footer></body></html>")
        for post in posts { #expect(page.bodyText.contains(post), "\(post): \(page.bodyText)") }
        #expect(!page.bodyText.contains("Impressum"))

        let article = String(repeating: "Fur farming is questioned more and more, and brands turn to fur-free collections. ", count: 5)
        // Each paragraph a field of its own, as Drupal's paragraphs print them: each a quarter of the text.
        let fields = (0..<4).map { _ in
            "<div class=\"paragraph\"><div class=\"field field--name-field-text field--type-text-long field--label-hidden field__item\"><p>\(article)</p></div></div>"
        }.joined()
        let lead = String(repeating: "Red foxes are hunted to keep their numbers stable, and their pelts are mostly thrown away. ", count: 3)
        let drupal = Self.extract("<html><body><div class=\"sidebar\">Newsletter</div><div class=\"node__content\"><div class=\"lead\"><p>\(lead)</p></div>"
            + "\(fields)</div></body></html>")
        #expect(drupal.bodyText.contains("fur-free collections"), "\(drupal.bodyText)")
    }

    /// The author's box under an article (its bio, "writes for…") is not the article; on a
    /// page whose only prose is comments — a forum whose posts are marked as comments —
    /// the comments are the text, while a blog's comments under its post stay out.
    @Test func authorBoxesAreLeftOutAndAForumsCommentsAreItsText() {
        let article = String(repeating: "The night train to Vienna leaves at nine, with sleeping cars, a dining car and a view of the Alps at dawn. ", count: 5)
        let bio = "Jana writes about trains and travel for the magazine and lives in Graz, where she keeps a model railway."
        let blog = Self.extract("""
            <html><body><article><h1>By night to Vienna</h1><p>\(article)</p>
            <div class="m-author"><div class="m-author__name">Jana Kovac</div><div class="m-author__description"><p>\(bio)</p></div></div></article>
            <div class="comments"><div class="comment"><p>We took it last year and loved every minute, the breakfast was good too.</p></div></div>
            </body></html>
            """)
        #expect(blog.bodyText.contains("view of the Alps"), "\(blog.bodyText)")
        #expect(!blog.bodyText.contains("model railway"), "the author box: \(blog.bodyText)")
        #expect(!blog.bodyText.contains("breakfast was good"), "a blog's comments: \(blog.bodyText)")

        let posts = ["Since the update my phone no longer reaches the app store over mobile data, only over wifi. Any idea what changed?",
                     "I can reach the store over mobile data on the same version, so it may be your carrier's settings this time.",
                     "There was the same case here last month: the carrier had blocked it for a week, then it worked again."]
        let thread = posts.enumerated().map { index, text in
            "<div class=\"MtnComment\"><span class=\"MtnCommentAccountName\">user\(index)</span><div class=\"MtnCommentText\">\(text)</div></div>"
        }.joined()
        let forum = Self.extract("<html><body><nav><a href=\"/\">Forum</a></nav><main class=\"content\"><h2>No app store over mobile data</h2>\(thread)</main>"
            + "<footer>Impressum</footer></body></html>")
        for post in posts { #expect(forum.bodyText.contains(post), "\(post): \(forum.bodyText)") }
    }

    /// A teaser is the article's own lead when it stands alone without links, and another
    /// page's when it links or is one of a list.
    @Test func aLeadTeaserStaysAndTeasersOfOtherPagesGo() {
        let body = String(repeating: "The council voted to open the old harbour baths again next summer, after two years of repairs. ", count: 5)
        let teasers = ["Tram line 4 gets new stops", "The library opens on Sundays", "A new bridge for cyclists"].map { title in
            "<div class=\"c-teaser\"><h3>\(title)</h3><p>Read what changes for residents of the old town in our report on \(title.lowercased()).</p></div>"
        }.joined()
        let page = Self.extract("""
            <html><body><article><div class="intro"><h1>Harbour baths to reopen</h1><div class="teaser-text"><p>The baths close to the ferry pier \
            will welcome swimmers again from June, the council decided on Tuesday.</p></div></div><p>\(body)</p><div class="more">\(teasers)</div>
            <div class="teaser"><a href="/sport">Sport results of the weekend, all in one place for every club of the region</a></div></article></body></html>
            """)
        #expect(page.bodyText.contains("welcome swimmers again from June"), "the lead: \(page.bodyText)")
        #expect(page.bodyText.contains("harbour baths again"))
        #expect(!page.bodyText.contains("Read what changes"), "a list of teasers: \(page.bodyText)")
        #expect(!page.bodyText.contains("Sport results"), "a linking teaser: \(page.bodyText)")
    }

    /// An article whose parts are each classed as a teaser (its date line, headline and
    /// text, as one CMS prints them) is not a list of teasers: the part holding most of
    /// their text is the article.
    @Test func anArticleWhosePartsAreClassedTeaserIsKept() {
        let text = String(repeating: "The school may build its new wing after the council approved the plan on Tuesday evening. ", count: 8)
        let list = (1...3).map { "<div class=\"entry\"><p>Older news \($0) from the council, with a short summary of what was decided.</p><a href=\"/n\($0)\">more</a></div>" }
            .joined()
        let page = Self.extract("""
            <html><body><nav><a href="/">Home</a></nav><div class="news-list">\(list)</div><div class="row"><div class="blog_teaser_firstline">22.05.2014</div>\
            <div class="blog_teaser_headline">New wing for the school</div><div class="blog_teaser_text" id="detail"><p>\(text)</p></div>\
            <div class="blog_teaser_text right">Created 22.05.2014</div></div><footer>Imprint</footer></body></html>
            """)
        #expect(page.bodyText.contains("new wing after the council approved"), "\(page.bodyText)")
    }

    /// Prose the chosen root leaves out but that comes before the content's end (a landing
    /// page's introduction in a section of its own) is the page's; prose after the content
    /// (an author's bio) is not.
    @Test func proseBeforeTheContentInAnotherSectionIsKeptAndABioAfterItIsNot() {
        let intro = "Welcome! I am a lawyer for information technology law, and I advise start-ups and small firms on contracts, data protection and licences, in person in the city or by video call."
        let quotes = (1...8).map { "<blockquote><p>Thank you for the quick, friendly and competent help with our contract, number \($0), and for explaining, clearly and patiently, what each clause means for us.</p><p>A client, 2016</p></blockquote>" }
            .joined()
        let bio = "Jane Doe has written about law and technology for twenty years, and she lives with her family by the sea in the north."
        let page = Self.extract("""
            <html><body><header><a href="/">Home</a></header><div class="jumbotron"><div class="col"><h1>Welcome</h1><p>\(intro)</p></div></div>\
            <div class="section"><h2>What clients say</h2><div class="quotes">\(quotes)</div></div><div class="col"><p>\(bio)</p></div>\
            <footer>Imprint</footer></body></html>
            """)
        #expect(page.bodyText.contains("Thank you for the quick"), "\(page.bodyText)")
        #expect(page.bodyText.contains("I advise start-ups"), "the introduction: \(page.bodyText)")
        #expect(!page.bodyText.contains("Jane Doe has written"), "the bio after the content: \(page.bodyText)")
    }

    /// A site that marks each paragraph as the article's body keeps them all; the excerpts of
    /// other posts' cards, each marked apart, are not the article.
    @Test func everyParagraphMarkedAsTheBodyIsKept() {
        let paragraphs = ["The dance company opens its season with a piece", "Rain falls on the stage for seventy-five minutes",
                          "Memories of the dancers shaped the choreography"].map { opening in
            "<p itemprop=\"articleBody\">\(opening), and \(String(repeating: "the audience follows every movement, from the first step to the last bow, ", count: 4))</p>"
        }.joined()
        let cards = (1...3).map {
            "<div class=\"card\"><h3>Other story \($0)</h3><div itemprop=\"articleBody\">A short excerpt of another story, number \($0), with a few words more.</div></div>"
        }.joined()
        let page = Self.extract("<html><body><nav><a href=\"/\">Home</a></nav><main><h1>Rain</h1>\(paragraphs)</main><aside>\(cards)</aside></body></html>")
        for opening in ["The dance company opens", "Rain falls on the stage", "Memories of the dancers"] {
            #expect(page.bodyText.contains(opening), "\(opening): \(page.bodyText)")
        }
        #expect(!page.bodyText.contains("A short excerpt"), "\(page.bodyText)")
    }

    /// A picture's caption or credit and a table of contents, marked by their classes, are
    /// not the article's text.
    @Test func captionsCreditsAndTablesOfContentsMarkedByClassAreLeftOut() {
        let body = String(repeating: "Bees need flowers from spring to autumn, and a garden with early and late bloomers feeds them all year. ", count: 5)
        let page = Self.extract("""
            <html><body><article><h1>A garden for bees</h1><div id="ez-toc-container"><p>Contents: Why bees need flowers all season long, \
            which plants bloom early, which plants bloom late</p></div><p>\(body)</p><div class="media__caption">A bumblebee on lavender in the \
            late summer sun of the south garden</div><div class="image-copyright">Photo agency of the region and its partners</div>\
            <p>\(body)</p></article></body></html>
            """)
        #expect(page.bodyText.contains("late bloomers feeds them"), "\(page.bodyText)")
        for furniture in ["Contents: Why bees", "A bumblebee on lavender", "Photo agency"] {
            #expect(!page.bodyText.contains(furniture), "\(furniture): \(page.bodyText)")
        }
    }

    /// A post that is a list of links (a link blog's daily picks) keeps them: its links are
    /// its text. An article's own link list ("More on this") still goes.
    @Test func aPostThatIsALinkListKeepsItsLinks() {
        let picks = ["Study doubts that state aid props up the press", "A new law for repair shops passes the first reading",
                     "Why the night trains came back to Europe", "The city plans a cable car over the river"]
        let list = picks.enumerated().map {
            "<p><a href=\"https://news.example/\($0.offset)\">\($0.element)</a><br>Worth a read today, via <a href=\"https://news.example/\">news.example</a></p>"
        }.joined()
        let page = Self.extract("<html><body><nav><a href=\"/\">Home</a></nav><article class=\"post\"><h1>Links of the day</h1>\(list)</article>"
            + "<footer>Imprint</footer></body></html>")
        for pick in picks { #expect(page.bodyText.contains(pick), "\(pick): \(page.bodyText)") }

        let article = String(repeating: "The cable car will cross the river in four minutes and carry two thousand people an hour. ", count: 5)
        let more = "<p><a href=\"/a\">More on transport in the city and the region</a></p><p><a href=\"/b\">All our reports on the river crossing</a></p>"
        let story = Self.extract("<html><body><article><h1>Cable car</h1><p>\(article)</p>\(more)</article></body></html>")
        #expect(story.bodyText.contains("two thousand people"))
        #expect(!story.bodyText.contains("More on transport"), "\(story.bodyText)")
    }

    @Test func anUnclosedNoscriptDoesNotHideThePage() {
        let article = String(repeating: "The harbour festival returns with lanterns on the water, music on the quay and stalls along the promenade. ", count: 6)
        let page = Self.extract("<html><body><noscript><div></noscript><div class=\"post\"><h1>Festival</h1><p>\(article)</p></div></body></html>")
        #expect(page.bodyText.contains("lanterns on the water"), "\(page.bodyText.prefix(100))")
    }

    @Test func rubyAnnotationsAreDroppedAndTheBaseKept() {
        let page = Self.extract("<html><body><p><ruby>漢<rp>(</rp><rt>かん</rt><rp>)</rp>字<rp>(</rp><rt>じ</rt><rp>)</rp></ruby>を勉強します。</p></body></html>")
        #expect(page.bodyText == "漢字を勉強します。")
    }

    @Test func zeroWidthCharactersAreRemoved() {
        let page = Self.extract("<html><body><p>co\u{00AD}operate, zero\u{200B}width, joi\u{2060}ner, b\u{FEFF}om, "
            + "\u{0645}\u{06CC}\u{200C}\u{062E}\u{0648}\u{0627}\u{0647}\u{0645} \u{1F469}\u{200D}\u{1F4BB}</p></body></html>")
        #expect(page.bodyText == "cooperate, zerowidth, joiner, bom, \u{0645}\u{06CC}\u{200C}\u{062E}\u{0648}\u{0627}\u{0647}\u{0645} \u{1F469}\u{200D}\u{1F4BB}",
                "the joiners Persian and emoji spell with stay")
    }

    /// The collector copies plain ASCII eight bytes at a time and everything else a byte at
    /// a time; on random text mixing both, what it keeps is what the rule says: whitespace
    /// runs as one space, the ends trimmed, the invisibles gone, everything else as it was.
    @Test func textIsCollectedByTheRuleWhateverItsMix() {
        let pieces = ["word", "a", "longerword", " ", "  ", "\t", "\n", "\r\n", ",", ", ", "é", "漢字", "\u{00AD}", "\u{200B}", "\u{2060}",
                      "\u{FEFF}", "\u{00A0}", "\u{200C}", "\u{200D}", "!?", "(x)", "12345678", "        "]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        for _ in 0..<300 {
            var text = "Start"
            for _ in 0..<(1 + next(400)) { text += pieces[next(pieces.count)] }
            text += "end"
            let expected = text.unicodeScalars.filter { !["\u{00AD}", "\u{200B}", "\u{2060}", "\u{FEFF}"].contains($0) }
                .split(whereSeparator: { [" ", "\t", "\n", "\r"].contains($0) }).map { String(String.UnicodeScalarView($0)) }
                .joined(separator: " ")
            let page = Self.extract("<html><body><p>\(text)</p></body></html>")
            #expect(page.bodyText == expected)
            if page.bodyText != expected { break }
        }
    }

    @Test func anArticleKeptInATemplateOrInJSONLDIsTheMainText() {
        let post = String(repeating: "A long post about sourdough starters, hydration, and the patience a good loaf needs. ", count: 8)
        let templated = Self.extract("""
            <html><body><div id="app">Loading…</div>
            <script type="text/template" id="post"><article><h1>Sourdough</h1><p>\(post)</p></article></script></body></html>
            """)
        #expect(templated.bodyText.contains("sourdough starters"), "\(templated.bodyText.prefix(80))")
        let jsonLD = Self.extract("""
            <html><head><script type="application/ld+json">{"@type": "NewsArticle", "headline": "Sourdough", "articleBody": "\(post)"}</script>
            </head><body><div id="app"></div></body></html>
            """)
        #expect(jsonLD.bodyText.contains("the patience a good loaf needs"))
    }

    @Test func aLongPageKeepsItsTextPastTheOldFourKilobytes() {
        let menu = (0..<200).map { "<li><a href=\"/c/\($0)\">Category \($0)</a></li>" }.joined()
        let paragraphs = (0..<40).map { "<p>Paragraph \($0) of the buying guide, about tents, poles, pegs, guy lines and the weight of it all.</p>" }.joined()
        let page = Self.extract("<html><body><nav><ul>\(menu)</ul></nav><article><h1>Buying guide</h1>\(paragraphs)<p>The last word: pitch it once at home before the first night out.</p></article></body></html>")
        #expect(page.bodyText.contains("The last word: pitch it once at home before the first night out."))
        #expect(!page.bodyText.contains("Category 17"))
    }

    /// Issue 60: the headline that repeats the page's title is the item's title, not its
    /// text; a heading that says something else stays.
    @Test func theHeadlineRepeatingTheTitleIsLeftOutAndOtherHeadingsStay() {
        let article = (0..<6).map { "<p>Paragraph \($0): the survey asked five thousand teams how they ship, test and secure what they build.</p>" }.joined()
        let page = Self.extract("""
            <html><head><title>Three findings from our survey | Example Blog</title></head><body>
            <article><h1>Three findings from our survey</h1>\(article)<h2>What it means for teams</h2>\(article)</article></body></html>
            """)
        #expect(!page.bodyText.contains("Three findings from our survey"), "\(page.bodyText.prefix(80))")
        #expect(page.bodyText.contains("What it means for teams"))
        #expect(page.mainText.explained().first { $0.text == "Three findings from our survey" }?.verdict == .title)
        let other = Self.extract("<html><head><title>Example Blog</title></head><body><article><h1>Field notes</h1>\(article)</article></body></html>")
        #expect(other.bodyText.hasPrefix("Field notes\n"), "a headline the title does not repeat stays: \(other.bodyText.prefix(40))")
        let graph = Self.extract("""
            <html><head><title>Example Blog</title><meta property="og:title" content="Field notes"></head>
            <body><article><h1>Field notes</h1>\(article)</article></body></html>
            """)
        #expect(!graph.bodyText.contains("Field notes"), "og:title counts as the title")
    }

    /// A line that is mostly a `time` element's date is metadata; a date inside a sentence, or
    /// a recipe's duration, is text.
    @Test func aDatelineIsLeftOutAndDatesInTextStay() {
        let article = (0..<6).map { "<p>Paragraph \($0) of the report on the council's vote about the new tram line through the old town.</p>" }.joined()
        let page = Self.extract("""
            <html><body><article><p>By Ann Lee, transport correspondent · <time datetime="2015-03-13T21:00">March 13, 2015, 9:00PM</time></p>
            \(article)<p>The council met on <time datetime="2015-03-10">Tuesday</time> and voted eleven to four for the line, after a long debate.</p>
            <p>Resting time before serving: <time datetime="PT15M">15 minutes</time></p>\(article)</article></body></html>
            """)
        #expect(!page.bodyText.contains("March 13, 2015"), "\(page.bodyText.prefix(80))")
        #expect(page.mainText.explained().first { $0.text.contains("March 13, 2015") }?.verdict == .dateline)
        #expect(page.bodyText.contains("The council met on Tuesday and voted"))
        #expect(page.bodyText.contains("Resting time before serving: 15 minutes"), "a duration is not a date")
    }

    /// `display` and `visibility` hide whatever spaces and case the style writes them with.
    @Test func styleHidesWithAnySpacing() {
        let article = (0..<6).map { "<p>Paragraph \($0) of a plain article about lighthouses, their keepers and their lamps.</p>" }.joined()
        let page = Self.extract("""
            <html><body><article>\(article)<p style="visibility: hidden;">Hidden one, a paragraph nobody sees on the page.</p>
            <p style="color:red; DISPLAY : none">Hidden two, another paragraph nobody sees.</p>
            <p style="display:none-ish">Shown, since no such value hides anything at all.</p>\(article)</article></body></html>
            """)
        #expect(!page.bodyText.contains("Hidden one") && !page.bodyText.contains("Hidden two"), "\(page.bodyText)")
        #expect(page.bodyText.contains("Shown, since"))
    }

    /// Issue 60: a long article is read whole (an encyclopedia's longest run past 100 KB).
    @Test func aLongArticleIsReadWhole() {
        let paragraphs = (0..<1_500).map { "<p>Paragraph \($0) of a long encyclopedia article about the islands, their people and history.</p>" }.joined()
        let page = Self.extract("<html><body><article>\(paragraphs)<p>The closing paragraph names the sources.</p></article></body></html>")
        #expect(page.bodyText.utf8.count > 128 * 1024)
        #expect(page.bodyText.hasSuffix("The closing paragraph names the sources."))
    }

    /// A `javascript:` link is a control showing its text, not a link away: its text is the
    /// page's. A section whose id says "sharing" but that holds prose is text.
    @Test func scriptLinksAreTextAndProseUnderABoilerplateNameStays() {
        let script = Self.extract("""
            <html><body><a href=" JavaScript:void(0)"><p>The whole story sits inside a script link, as some pages wrap it.</p>
            <p>Its second paragraph says more about the harbour and the boats that leave it at dawn.</p>
            <p>And a third one, so that the page holds more than a line or two of text.</p></a></body></html>
            """)
        #expect(script.bodyText.contains("The whole story sits inside a script link"), "\(script.bodyText)")
        let section = (0..<10).map { "<p>Step \($0): push the draft changesets to the shared repository, then pull them on the other machine and update.</p>" }.joined()
        let page = Self.extract("""
            <html><body><div class="content"><div class="section" id="intro"><h2>Introduction</h2>\(section)</div>
            <div class="section" id="sharing-with-a-single-developer"><h2>Sharing with a single developer</h2>\(section)</div>
            <div class="section" id="setting-up"><h2>Setting up</h2>\(section)</div>
            <div class="section" id="next-steps"><h2>Next steps</h2>\(section)</div>
            <div class="share-bar"><a href="/s/1">Share</a> <a href="/s/2">Tweet</a> <a href="/s/3">Mail</a></div></div></body></html>
            """)
        #expect(page.bodyText.contains("Sharing with a single developer"), "\(page.bodyText.prefix(200))")
        #expect(!page.bodyText.contains("Tweet"))
    }
}
