use super::*;

/// Resolves "Rust" (id 1) and "Cargo" (id 2), case-insensitively; everything else is wanted.
fn resolve(title: &str) -> LinkTarget {
    match title.to_lowercase().as_str() {
        "rust" => LinkTarget::Page {
            id: 1,
            title: "Rust".to_owned(),
        },
        "cargo" => LinkTarget::Page {
            id: 2,
            title: "Cargo".to_owned(),
        },
        _ => LinkTarget::Wanted,
    }
}

fn render(markdown: &str) -> String {
    render_article(markdown, &resolve).into_string()
}

/// Renders with `quote` marked: the HTML, or `None` when it was not marked.
fn render_marked(markdown: &str, quote: &str) -> Option<String> {
    let (html, marked) = render_article_marked(markdown, &resolve, &|_| None, quote);
    marked.then(|| html.into_string())
}

/// The text inside the marks of rendered HTML, the marks' runs joined by `|`.
fn marked_text(html: &str) -> String {
    let mut runs = Vec::new();
    let mut rest = html;
    while let Some(at) = rest.find("<mark class=\"cited-quote\"") {
        let open_end = at + rest[at..].find('>').expect("mark opens") + 1;
        let close = open_end + rest[open_end..].find("</mark>").expect("mark closes");
        runs.push(shown_text(&rest[open_end..close]));
        rest = &rest[close..];
    }
    runs.join("|")
}

#[test]
fn renders_markdown_structure() {
    let cases: &[(&str, &str)] = &[
        ("# Title\n\n## Sub", "<h1 id=\"wm-title\">Title</h1>\n<h2 id=\"wm-sub\">Sub</h2>\n"),
        ("para *em* **strong** ~~gone~~", "<p>para <em>em</em> <strong>strong</strong> <del>gone</del></p>\n"),
        ("- a\n- b\n\n1. one\n2. two", "<ul>\n<li>a</li>\n<li>b</li>\n</ul>\n<ol>\n<li>one</li>\n<li>two</li>\n</ol>\n"),
        ("3. three", "<ol start=\"3\">\n<li>three</li>\n</ol>\n"),
        (
            "| a | b |\n|:--|--:|\n| 1 | 2 |",
            "<table><thead><tr><th>a</th><th>b</th></tr></thead><tbody>\n<tr><td>1</td><td>2</td></tr>\n</tbody></table>\n",
        ),
        ("`[[not a link]]`", "<p><code>[[not a link]]</code></p>\n"),
        ("```\n[[not a link]]\n<b>x</b>\n```", "<pre><code>[[not a link]]\n&lt;b&gt;x&lt;/b&gt;\n</code></pre>\n"),
        ("```rust\nfn f() {}\n```", "<pre><code>fn f() {}\n</code></pre>\n"),
        (
            "- [ ] todo\n- [x] done",
            "<ul>\n<li><span class=\"task\">☐</span> todo</li>\n<li><span class=\"task done\">☑</span> done</li>\n</ul>\n",
        ),
        ("> quote", "<blockquote>\n<p>quote</p>\n</blockquote>\n"),
        ("a &amp; <b>bold</b> & < >", "<p>a &amp; <b>bold</b> &amp; &lt; &gt;</p>\n"),
    ];
    for (markdown, want) in cases {
        assert_eq!(render(markdown), *want, "for {markdown:?}");
    }
}

#[test]
fn wiki_links_resolve_to_articles_or_wanted_pages() {
    let html = render(
        "See [[Rust]], [[ cargo | the build tool ]] and [[Borrow Checker & \"Lifetimes\"]].",
    );
    assert!(
        html.contains(
            "<a class=\"wikilink\" href=\"wikimind://article/1\" data-article-id=\"1\" rel=\"noopener noreferrer\">Rust</a>"
        ),
        "{html}"
    );
    assert!(
        html.contains("href=\"wikimind://article/2\" data-article-id=\"2\" title=\"Cargo\""),
        "{html}"
    );
    assert!(html.contains(">the build tool</a>"), "{html}");
    assert!(
        html.contains(
            "<a class=\"wikilink wanted\" \
             href=\"wikimind://wanted/Borrow%20Checker%20%26%20%22Lifetimes%22\" \
             data-wanted=\"Borrow Checker &amp; &quot;Lifetimes&quot;\""
        ),
        "{html}"
    );
}

#[test]
fn wiki_links_in_code_links_and_headings() {
    let html = render("# On [[Rust]]\n\n`[[Rust]]` [text [[Rust]]](https://example.com)");
    assert!(
        html.starts_with("<h1 id=\"wm-on-rust\">On <a class=\"wikilink\""),
        "{html}"
    );
    assert!(html.contains("<code>[[Rust]]</code>"), "{html}");
    assert!(
        html.contains(">text [[Rust]]</a>"),
        "links do not nest: {html}"
    );
    assert_eq!(html.matches("class=\"wikilink\"").count(), 1, "{html}");
}

#[test]
fn every_wiki_link_form_renders_and_attachments_load_nothing() {
    let html = render(
        "# Intro\n\n## Intro\n\nSee [[Rust#Ownership rules|ownership]], [[#Intro]], \
         [[folder/Cargo.md]], ![[Rust]], ![[diagram.png|200]], [[paper.pdf|the paper]] \
         and [[Nowhere#Part]].\n\n| a |\n|---|\n| [[Cargo\\|the tool]] |\n",
    );
    assert!(
        html.contains("<h2 id=\"wm-intro-1\">"),
        "a second heading gets -1: {html}"
    );
    assert!(
        html.contains(
            "href=\"wikimind://article/1#wm-ownership-rules\" data-article-id=\"1\" \
             data-anchor=\"wm-ownership-rules\""
        ),
        "{html}"
    );
    assert!(html.contains(">ownership</a>"), "{html}");
    assert!(
        html.contains("<a class=\"wikilink\" href=\"#wm-intro\""),
        "{html}"
    );
    assert_eq!(
        html.matches("data-article-id=\"2\"").count(),
        2,
        "folder and .md: {html}"
    );
    assert!(
        html.contains(">the tool</a>"),
        "a link in a table cell: {html}"
    );
    assert!(
        html.contains("<span class=\"attachment\" title=\"diagram.png\">diagram.png</span>"),
        "{html}"
    );
    assert!(html.contains(">the paper</span>"), "{html}");
    assert!(html.contains("data-wanted=\"Nowhere\""), "{html}");
    assert!(!html.contains("<img"), "{html}");
    assert!(!html.contains("[["), "{html}");
}

#[test]
fn external_links_open_outside_the_app() {
    let html = render("[site](https://example.com/a?b=1&c=2 \"T\") <mailto:me@example.com> [in app](wikimind://article/3) [note](#x) [rel](other.md)");
    assert!(
        html.contains(
            "<a class=\"external\" href=\"https://example.com/a?b=1&amp;c=2\" target=\"_blank\" title=\"T\" rel=\"noopener noreferrer\">site</a>"
        ),
        "{html}"
    );
    assert!(
        html.contains("<a class=\"external\" href=\"mailto:me@example.com\" target=\"_blank\""),
        "{html}"
    );
    assert!(html.contains("<a href=\"wikimind://article/3\""), "{html}");
    assert!(html.contains("<a href=\"#x\""), "{html}");
    assert!(
        html.contains(" rel</p>") && !html.contains("other.md"),
        "{html}"
    );
}

#[test]
fn images_are_never_loaded() {
    let html = render(
        "![a chart](https://example.com/chart.png) ![local](img/x.png) ![](http://e.com/i.gif)",
    );
    assert!(!html.contains("<img"), "{html}");
    assert!(
        html.contains("<a class=\"external\" href=\"https://example.com/chart.png\" target=\"_blank\" rel=\"noopener noreferrer\">a chart</a>"),
        "{html}"
    );
    assert!(html.contains(" local "), "{html}");
    assert!(html.contains(">image</a>"), "{html}");
}

#[test]
fn footnotes_link_to_their_definitions() {
    let html = render("Claim.[^src]\n\n[^src]: The source.");
    assert!(
        html.contains("<sup class=\"footnote-ref\"><a href=\"#wm-fn-1\" rel=\"noopener noreferrer\">1</a></sup>"),
        "{html}"
    );
    assert!(
        html.contains("<div class=\"footnote\" id=\"wm-fn-1\"><sup>1</sup>"),
        "{html}"
    );
    assert!(html.contains("The source."), "{html}");
}

#[test]
fn hostile_input_renders_inert() {
    let body = r#"# Hostile

<script>alert(1)</script>

<img src=x onerror=alert(1)>

[click](javascript:alert(1)) [click2](JaVaScRiPt:alert(2)) [data](data:text/html;base64,PHNjcmlwdD4=)
[vb](vbscript:msgbox(1))

<a href="javascript:alert(3)">raw link</a> <a href="&#106;avascript:alert(4)">entity link</a>

<iframe src="https://evil.example/"></iframe>

<style>body { display: none }</style>

<svg onload=alert(5)><circle r=1 /></svg>

<img src="https://tracker.example/x.png">

<p style="position:fixed" onclick="alert(6)" class="evil wikilink">styled</p>

<form action="https://evil.example/"><input name=x><button>go</button></form>

<object data="x.swf"></object><embed src="x.swf"><math><mi>x</mi></math>

<a href="https://ok.example/" onmouseover="alert(7)" target="_top" data-x="1">ok</a>

<base href="https://evil.example/"><meta http-equiv="refresh" content="0;url=https://evil.example/">
<link rel=stylesheet href="https://evil.example/x.css">

[[Wanted" onmouseover="alert(8)]]
"#;
    let html = render(body).to_lowercase();
    assert_inert(&html);
    for forbidden in [
        "<script",
        "alert(1)",
        "<img",
        "onerror",
        "javascript",
        "data:",
        "vbscript",
        "<iframe",
        "<style",
        "display: none",
        "<svg",
        "onload",
        "tracker.example",
        "style=",
        "onclick",
        "<form",
        "<input",
        "<button",
        ">go<",
        "<object",
        "<embed",
        "<math",
        "_top",
        "data-x",
        "<base",
        "<meta",
        "<link",
        "evil.example",
        "class=\"evil",
    ] {
        assert!(
            !html.contains(forbidden),
            "`{forbidden}` survived in:\n{html}"
        );
    }
    // The harmless text is still there.
    for kept in ["click", "click2", "raw link", "entity link", "styled", "ok"] {
        assert!(html.contains(kept), "`{kept}` missing from:\n{html}");
    }
    assert!(html.contains("<p>styled</p>"), "{html}");
    assert!(
        html.contains("data-wanted=\"wanted&quot; onmouseover=&quot;alert(8)\""),
        "{html}"
    );
}

/// Parses rendered HTML back and checks every element and attribute against what the
/// sanitiser promises: no active content whatever the text says.
fn assert_inert(html: &str) {
    const TAGS: &[&str] = &[
        "html",
        "body",
        "a",
        "abbr",
        "b",
        "blockquote",
        "br",
        "caption",
        "code",
        "dd",
        "del",
        "details",
        "div",
        "dl",
        "dt",
        "em",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "hr",
        "i",
        "kbd",
        "li",
        "mark",
        "ol",
        "p",
        "pre",
        "q",
        "s",
        "samp",
        "span",
        "strong",
        "sub",
        "summary",
        "sup",
        "table",
        "tbody",
        "td",
        "tfoot",
        "th",
        "thead",
        "tr",
        "u",
        "ul",
    ];
    let fragment = scraper::Html::parse_fragment(html);
    for node in fragment.tree.values() {
        let scraper::Node::Element(element) = node else {
            continue;
        };
        assert!(
            TAGS.contains(&element.name()),
            "<{}> in {html}",
            element.name()
        );
        for (name, value) in element.attrs() {
            assert!(
                !name.starts_with("on") && name != "style" && name != "src",
                "{name}= in {html}"
            );
            if name == "href" {
                let value = value.to_ascii_lowercase();
                assert!(
                    ["http:", "https:", "mailto:", "wikimind:", "#"]
                        .iter()
                        .any(|scheme| value.starts_with(scheme)),
                    "href={value} in {html}"
                );
            }
            if name == "target" {
                assert_eq!(value, "_blank", "{html}");
            }
        }
    }
}

/// A small deterministic generator, so the garbage test needs no extra dependency.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next() % n as u64).unwrap_or(0)
    }
}

#[test]
fn garbage_never_panics_and_never_yields_active_content() {
    const TOKENS: &[&str] = &[
        "[[",
        "]]",
        "|",
        "`",
        "```\n",
        "~~~",
        "<",
        ">",
        "</",
        "<a href=",
        "javascript:",
        "\n",
        "\n\n",
        " ",
        "    ",
        "#",
        "*",
        "_",
        "[",
        "]",
        "(",
        ")",
        "!",
        "[^1]",
        "[^1]: ",
        "- [ ] ",
        "- [x] ",
        "|---|",
        "\0",
        "é",
        "𝔘",
        "&",
        "&#x0;",
        "&amp",
        "<script>",
        "<img src=x ",
        "onerror=",
        "\r",
        "\t",
        "~~",
        "http://x.y/",
        "wikimind://",
        "\\",
        "\"",
        "'",
        "1. ",
        "> ",
        "---\n",
        "<!--",
        "-->",
        "<svg>",
        "<style>",
        "word",
        "Rust",
        "cargo",
    ];
    let mut random = XorShift(0x9E37_79B9_7F4A_7C15);
    for _ in 0..400 {
        let length = random.below(120);
        let mut input = String::new();
        for _ in 0..length {
            input.push_str(TOKENS[random.below(TOKENS.len())]);
        }
        let html = render(&input);
        assert_inert(&html);
        for link in wiki_links(&input) {
            assert!(!link.target.is_empty() && link.target == link.target.trim());
        }
    }
    // Arbitrary bytes, lossily decoded.
    for _ in 0..200 {
        let bytes: Vec<u8> = (0..random.below(300))
            .map(|_| random.next() as u8)
            .collect();
        let input = String::from_utf8_lossy(&bytes);
        assert_inert(&render(&input));
        let _ = wiki_links(&input);
    }
}

#[test]
fn deep_nesting_does_not_overflow() {
    for markdown in [
        "> ".repeat(2_000) + "deep",
        "- ".repeat(2_000) + "deep",
        "[".repeat(10_000) + &"]".repeat(10_000),
        "*".repeat(10_000) + "x" + &"*".repeat(10_000),
        "<div>".repeat(2_000) + "deep",
    ] {
        let html = render(&markdown);
        assert!(!html.is_empty());
        let _ = wiki_links(&markdown);
    }
}

#[test]
fn safe_html_serialises_as_a_string() {
    let html = render("**x**");
    assert_eq!(
        serde_json::to_string(&html).unwrap(),
        "\"<p><strong>x</strong></p>\\n\""
    );
    assert_eq!(SafeHtml::from_text("<b>").as_str(), "&lt;b&gt;");
}

mod hostile {
    use proptest::prelude::*;

    use super::*;
    use crate::hostile_text;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(500))]

        /// Link contexts are cut from the text at byte offsets: any text renders, and
        /// every link keeps a target and a short context.
        #[test]
        fn any_quote_marks_without_changing_the_text(
            text in hostile_text::text(200),
            from in 0usize..200,
            len in 0usize..60,
        ) {
            // A quote cut from the text itself (so often found), or a hostile one.
            let quote: String = text.chars().skip(from % (text.chars().count() + 1)).take(len).collect();
            let (plain, (marked, _)) = (render(&text), render_article_marked(&text, &resolve, &|_| None, &quote));
            prop_assert_eq!(text_of(&plain), text_of(marked.as_str()));
        }

        fn any_text_renders_and_yields_links(text in hostile_text::text(300)) {
            let _ = render(&text);
            for link in wiki_links(&text) {
                prop_assert!(!link.target.trim().is_empty());
                prop_assert!(link.context.chars().count() <= 400, "{:?}", link.context);
            }
        }
    }
}

#[test]
fn escaped_text_carries_no_markup_and_no_control_characters() {
    assert_eq!(
        escape_html("<b a=\"1\" b='2'>&\u{1b}]0;x\u{7}\n\t</b>"),
        "&lt;b a=&quot;1&quot; b=&#39;2&#39;&gt;&amp;\u{fffd}]0;x\u{fffd}\n\t&lt;/b&gt;"
    );
}

/// The cases `quote-fold-cases.json` holds, one for every character the quote fold treats
/// specially (curly and straight quotes, dashes, guillemets, the backtick, `_`, U+2212,
/// NBSP, ...): the core grounds each quote in the markdown, renders the markdown to the
/// text the file says, and marks the quote on that page, covering exactly the quote as
/// read. A quote the core grounds is marked on the page the window shows.
#[test]
fn a_grounded_quote_is_found_in_the_page_as_rendered() {
    let raw = include_str!("quote-fold-cases.json");
    let cases: Vec<serde_json::Value> = serde_json::from_str(raw).expect("cases");
    assert!(cases.len() >= 10);
    for case in &cases {
        let field = |k: &str| case[k].as_str().expect(k).to_owned();
        let (markdown, rendered, quote) = (field("markdown"), field("rendered"), field("quote"));
        assert!(
            crate::compile::ground::GroundingIndex::new(&markdown).contains(&quote),
            "{}: {quote:?} does not ground in {markdown:?}",
            field("why")
        );
        let html = render(&markdown);
        assert_eq!(text_of(&html), rendered, "{}: {html}", field("why"));
        let marked = render_marked(&markdown, &quote)
            .unwrap_or_else(|| panic!("{}: {quote:?} is not marked in {html}", field("why")));
        assert_eq!(
            text_of(&marked),
            rendered,
            "{}: marking changes no text",
            field("why")
        );
        let read = wikimind_text::fold::normalise(&link_text(&quote).replace('`', ""));
        assert_eq!(
            wikimind_text::fold::normalise(&marked_text(&marked).replace('|', "")),
            read,
            "{}: {marked}",
            field("why")
        );
    }
}

#[test]
fn a_cited_quote_is_marked_where_a_reader_sees_it() {
    // Across emphasis, a wiki link (its shown text) and a code span.
    let html = render_marked(
        "It\u{2019}s the **base** of a cappuccino \u{2014} with [[Cargo|the foam]] on `top` today.",
        "It's the base of a cappuccino - with [[Cargo|the foam]] on `top`",
    )
    .expect("marked");
    assert_eq!(
        marked_text(&html),
        "It\u{2019}s the |base| of a cappuccino \u{2014} with |the foam| on |top"
    );
    assert!(
        html.contains("<mark class=\"cited-quote\" id=\"wm-cited-quote\">It"),
        "{html}"
    );
    assert_eq!(html.matches("id=\"wm-cited-quote\"").count(), 1, "{html}");
    assert!(html.contains("data-article-id=\"2\""), "{html}");
    assert!(
        html.contains("<code><mark class=\"cited-quote\">top</mark></code>")
            || html.contains("<mark class=\"cited-quote\"><code>top</code></mark>"),
        "{html}"
    );

    // Across two paragraphs and inside a heading, whose id stays.
    let html = render_marked(
        "# Nine Bars\n\nEspresso is brewed.\n\nAt nine bars.",
        "brewed. At nine",
    )
    .expect("marked");
    assert_eq!(marked_text(&html), "brewed.|At nine");
    let html = render_marked("# Nine Bars\n\nText.", "nine bars").expect("marked");
    assert!(html.contains("<h1 id=\"wm-nine-bars\"><mark class=\"cited-quote\" id=\"wm-cited-quote\">Nine Bars</mark></h1>"), "{html}");

    // Part of a word, a line break, and the first of two places.
    assert_eq!(
        marked_text(&render_marked("one\ntwo two", "ne tw").unwrap()),
        "ne|tw"
    );
    assert_eq!(
        render_marked("a b a b", "a b")
            .unwrap()
            .matches("<mark")
            .count(),
        1
    );

    // Not there, or nothing to mark: the page as rendered unmarked.
    assert_eq!(render_marked("Espresso is brewed.", "Tea is brewed."), None);
    assert_eq!(render_marked("Espresso is brewed.", " ** `` _ "), None);
    let (html, marked) = render_article_marked("Tea.", &resolve, &|_| None, "Coffee");
    assert!(!marked);
    assert_eq!(html.into_string(), render("Tea."));

    // A body cannot smuggle attributes onto a mark.
    let html = render("<mark class=\"cited-quote evil\" onclick=\"x()\" style=\"a\">t</mark>");
    assert!(
        !html.contains("onclick") && !html.contains("style") && !html.contains("evil"),
        "{html}"
    );
}

/// The text a webview shows for simple rendered HTML: tags dropped, the entities the
/// renderer writes decoded, the trailing newline trimmed.
fn text_of(html: &str) -> String {
    shown_text(html).trim_end().to_owned()
}

/// [`text_of`], untrimmed.
fn shown_text(html: &str) -> String {
    let mut text = String::new();
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag => text.push(c),
            _ => {}
        }
    }
    text.replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&nbsp;", "\u{a0}")
        .replace("&amp;", "&")
}

/// The window finds a heading and the cited quote by the ids these constants name (they are
/// generated into its bindings), and takes no id without the prefix for a section.
#[test]
fn the_ids_the_window_looks_up_are_the_generated_constants() {
    let html = render("# Nine Bars\n\n<div id=\"main\">x</div>");
    assert!(
        html.contains(&format!("<h1 id=\"{ID_PREFIX}nine-bars\">")),
        "{html}"
    );
    assert!(
        html.contains(&format!("id=\"{ID_PREFIX}main\"")),
        "a body's own id gets the prefix: {html}"
    );
    let marked = render_marked("Espresso is brewed.", "brewed").expect("marked");
    assert!(
        marked.contains(&format!("id=\"{CITED_QUOTE_ID}\"")),
        "{marked}"
    );
    assert!(CITED_QUOTE_ID.starts_with(ID_PREFIX));
}

/// Every id the app or the UI looks up in a rendered page, and who looks it up.
const LOOKED_UP_IDS: &[(&str, &str)] = &[
    (
        "wm-cited-quote",
        "ui/src/screens/Page.svelte scrolls to it; ui/e2e/app.test.mjs waits for it",
    ),
    (
        "wm-fn-1",
        "a footnote reference links to #wm-fn-1; ui/src/actions.ts scrolls to it",
    ),
    (
        "wm-fn-2",
        "a footnote reference links to #wm-fn-2; ui/src/actions.ts scrolls to it",
    ),
];

#[test]
fn a_body_cannot_take_an_id_the_app_owns() {
    // The list covers every id the app owns, and the app owns every id in it.
    for id in APP_IDS {
        assert!(LOOKED_UP_IDS.iter().any(|(i, _)| i == id), "{id} untested");
    }
    for prefix in NUMBERED_APP_IDS {
        assert!(
            LOOKED_UP_IDS.iter().any(|(i, _)| i.starts_with(prefix)),
            "{prefix}N untested"
        );
    }
    // The app's own elements: the first mark of a quote, two footnotes.
    let own = "Espresso is brewed at nine bars.[^a] Crema forms.[^b]\n\n\
               [^a]: First note.\n\n[^b]: Second note.\n";
    let quote = "brewed at nine bars";
    let owner = |id: &str| {
        if id == "wm-cited-quote" {
            "<mark class=\"cited-quote\" id=\"wm-cited-quote\">".to_owned()
        } else {
            format!("<div class=\"footnote\" id=\"{id}\">")
        }
    };
    for (id, who) in LOOKED_UP_IDS {
        assert!(is_app_id(id), "{id}");
        let slug = id.strip_prefix("wm-").unwrap();
        let title = slug.replace('-', " ");
        // A heading that slugs to the id, one written before the app's elements, and the
        // id written in raw HTML on a heading and a paragraph.
        for body in [
            format!("## {title}\n\n{own}\n## {title}\n\nSee [[#{title}]].\n"),
            format!("<h2 id=\"{slug}\">Raw</h2>\n\n{own}"),
            format!("<h3 id=\"{id}\">Raw</h3>\n\n<p id=\"{id}\">Raw</p>\n\n{own}"),
        ] {
            let html = render_marked(&body, quote).expect("marked");
            assert_eq!(
                html.matches(&format!("id=\"{id}\"")).count(),
                1,
                "{id} ({who}) is taken by the body:\n{body}\n{html}"
            );
            assert!(html.contains(&owner(id)), "{id} ({who}):\n{html}");
        }
        // The heading got the first id free, and the link to it points there.
        let html = render(&format!("## {title}\n\nSee [[#{title}]].\n"));
        assert!(
            html.contains(&format!("<h2 id=\"{id}-1\">")),
            "{id} ({who}):\n{html}"
        );
        assert!(
            html.contains(&format!("href=\"#{id}-1\"")),
            "{id} ({who}):\n{html}"
        );
        let html = render(&format!("See [[Rust#{title}]]."));
        assert!(
            html.contains(&format!("data-anchor=\"{id}-1\"")),
            "{id} ({who}):\n{html}"
        );
    }
    // Headings around the app's ids get ids of their own, never a footnote's.
    let html = render("## Burr grinders\n\n## Fn\n\n## Fn\n\n## Fn 1 1\n");
    for id in ["wm-burr-grinders", "wm-fn", "wm-fn-1-1", "wm-fn-1-1-1"] {
        assert!(html.contains(&format!("id=\"{id}\"")), "{id}: {html}");
    }
    assert!(!html.contains("id=\"wm-fn-1\""), "{html}");
}

#[test]
fn a_summary_reads_its_markdown_and_wiki_links_as_their_text() {
    assert_eq!(
        summary_text(
            "A [lexer](src/Lexer/constructor.md) and a [parser](<src/Parser/constructor.md>) \
             feed [[Rust|the compiler]], see <https://example.org> and [[Cargo#Build]]."
        ),
        "A lexer and a parser feed the compiler, see https://example.org and Cargo > Build."
    );
    // Nothing a link: as written; brackets that are no link stay.
    assert_eq!(
        summary_text("Arrays [0] and `[x](y)`."),
        "Arrays [0] and `[x](y)`."
    );
    assert_eq!(summary_text(""), "");
}

/// Knows two paths, as the page's links would: a note `Parser/constructor.md` (page 7,
/// `Parser/constructor`) and a document `Papers/Brew Guide.pdf` (page 8, `The Brewing
/// Guide`).
fn known_path(path: &str) -> Option<LinkTarget> {
    let (id, title) = match path {
        "Parser/constructor.md" | "src/Parser/constructor.md" => (7, "Parser/constructor"),
        "Papers/Brew Guide.pdf" | "Brew Guide.pdf" => (8, "The Brewing Guide"),
        _ => return None,
    };
    Some(LinkTarget::Page {
        id,
        title: title.to_owned(),
    })
}

#[test]
fn a_markdown_link_written_as_a_path_leads_to_the_page_of_the_note_it_names() {
    let html = render_page_body(
        "See [the parser](../Parser/constructor.md#Usage%20notes), \
         [by root](/src/Parser/constructor.md), [gone](Nope.md), [web](https://example.org) \
         and [script](javascript:alert(1)).",
        &resolve,
        &known_path,
    )
    .into_string();
    assert!(
        html.contains("href=\"wikimind://article/7#wm-usage-notes\""),
        "{html}"
    );
    assert!(html.contains("data-anchor=\"wm-usage-notes\""), "{html}");
    assert!(html.contains(">the parser</a>"), "{html}");
    assert_eq!(
        html.matches("data-article-id=\"7\"").count(),
        2,
        "both paths lead to page 7: {html}"
    );
    // A path no link knows, and hostile schemes, stay text.
    assert!(html.contains("gone"), "{html}");
    assert!(!html.contains("Nope.md"), "{html}");
    assert!(!html.contains("javascript"), "{html}");
    assert!(html.contains("class=\"external\""), "{html}");
    // Without a path resolver (a digest, an answer) the same link is its text, as before.
    let plain = render("See [the parser's](../Parser/constructor.md).");
    assert!(!plain.contains("<a"), "{plain}");
}

#[test]
fn a_link_to_a_document_the_wiki_read_leads_to_its_page_and_others_stay_chips() {
    let html = render_page_body(
        "![[Brew Guide.pdf]] and [[Papers/Brew Guide.pdf|the guide]], \
         [read it](Brew%20Guide.pdf), but ![[Other.pdf]] and ![[photo.png]].",
        &resolve,
        &known_path,
    )
    .into_string();
    assert_eq!(
        html.matches("href=\"wikimind://article/8\"").count(),
        3,
        "{html}"
    );
    assert!(html.contains(">the guide</a>"), "{html}");
    assert!(html.contains(">read it</a>"), "{html}");
    assert_eq!(html.matches("class=\"attachment\"").count(), 2, "{html}");
    // Without the page's paths a document is a chip, as any attachment.
    let plain = render("![[Brew Guide.pdf]]");
    assert!(plain.contains("class=\"attachment\""), "{plain}");
}
