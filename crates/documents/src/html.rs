//! Readable text from HTML.
//!
//! The page is read with html5ever's tokenizer, which decodes entities, handles raw-text
//! elements (`script`, `style`, `title`, ...) like a browser and never fails. No tree is
//! built: a tree builder is quadratic on deeply nested tags (a hostile page with 50,000
//! nested `<div>`s takes minutes), while a token stream is linear and needs no recursion.
//! The tokens are reduced to markdown-like text: headings as `#` lines, paragraphs
//! separated by blank lines, list items as `- `, `pre` kept verbatim in a code fence.
//! Navigation, scripts, styles, forms and other page furniture are dropped, and a page that
//! marks its main content (`<main>`) is read from there only: what lies around it (menus,
//! pop-ups, sidebars a site did not mark as such) is furniture too.

use std::cell::RefCell;

use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{
    BufferQueue, Tag, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer,
};

use wikimind_text::markdown::clean_title;

/// Elements dropped with everything inside them.
const DROPPED: &[&str] = &[
    "script", "style", "nav", "header", "footer", "aside", "noscript", "form", "svg", "iframe",
    "template", "object", "embed", "canvas", "select", "button", "textarea", "dialog", "math",
    "audio", "video", "picture", "map",
];

/// Elements that start and end a block of text.
const BLOCKS: &[&str] = &[
    "address",
    "article",
    "blockquote",
    "body",
    "caption",
    "center",
    "dd",
    "details",
    "div",
    "dl",
    "dt",
    "fieldset",
    "figcaption",
    "figure",
    "hgroup",
    "hr",
    "html",
    "legend",
    "main",
    "ol",
    "p",
    "section",
    "summary",
    "table",
    "tbody",
    "tfoot",
    "thead",
    "tr",
    "ul",
];

/// What an HTML page reads as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadableHtml {
    /// `<title>`, else the first `<h1>`.
    pub title: Option<String>,
    /// The readable text.
    pub text: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BlockKind {
    Paragraph,
    Heading(usize),
    ListItem(usize),
    Pre,
}

struct Block {
    kind: BlockKind,
    text: String,
    /// Whether it lies inside `<main>`.
    in_main: bool,
}

#[derive(Default)]
struct Extractor {
    blocks: Vec<Block>,
    current: String,
    kind: Option<BlockKind>,
    pending_space: bool,
    pre_depth: usize,
    list_depth: usize,
    /// The dropped element being skipped and how many of its kind are open.
    skipping: Option<(String, usize)>,
    title: Option<String>,
    title_buffer: Option<String>,
    /// The first `<h1>`, and the first inside `<main>`.
    first_h1: Option<String>,
    first_main_h1: Option<String>,
    /// How many `<main>` elements are open.
    main_depth: usize,
}

/// Extracts the title and the readable text of an HTML document.
pub fn readable_html(source: &str) -> ReadableHtml {
    let input = BufferQueue::default();
    input.push_back(StrTendril::from_slice(source));
    let tokenizer = Tokenizer::new(
        ExtractorSink(RefCell::new(Extractor::default())),
        Default::default(),
    );
    // The sink never asks to run a script, so one `feed` consumes the whole input.
    let _ = tokenizer.feed(&input);
    tokenizer.end();
    let mut extractor = tokenizer.sink.0.into_inner();
    extractor.flush();
    extractor.finish()
}

struct ExtractorSink(RefCell<Extractor>);

impl TokenSink for ExtractorSink {
    type Handle = ();

    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        let mut extractor = self.0.borrow_mut();
        match token {
            Token::TagToken(tag) => return extractor.tag(&tag),
            Token::CharacterTokens(text) => extractor.text(&text),
            _ => {}
        }
        TokenSinkResult::Continue
    }
}

fn is_dropped(tag: &Tag) -> bool {
    DROPPED.contains(&&*tag.name)
        || tag.attrs.iter().any(|attr| {
            let name = &*attr.name.local;
            name == "hidden"
                || (name == "aria-hidden" && attr.value.trim().eq_ignore_ascii_case("true"))
        })
}

/// How the tokenizer must read the content of an element, as a browser would.
fn raw_content(name: &str) -> Option<TokenSinkResult<()>> {
    match name {
        "script" => Some(TokenSinkResult::RawData(RawKind::ScriptData)),
        "style" | "xmp" | "iframe" | "noembed" | "noframes" | "noscript" => {
            Some(TokenSinkResult::RawData(RawKind::Rawtext))
        }
        "title" | "textarea" => Some(TokenSinkResult::RawData(RawKind::Rcdata)),
        "plaintext" => Some(TokenSinkResult::Plaintext),
        _ => None,
    }
}

fn heading_level(name: &str) -> Option<usize> {
    match name {
        "h1" => Some(1),
        "h2" => Some(2),
        "h3" => Some(3),
        "h4" => Some(4),
        "h5" => Some(5),
        "h6" => Some(6),
        _ => None,
    }
}

/// Elements that never have content or an end tag.
const VOID: &[&str] = &[
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track",
    "wbr",
];

impl Extractor {
    /// Handles one tag; tells the tokenizer how to read what follows.
    fn tag(&mut self, tag: &Tag) -> TokenSinkResult<()> {
        let name: &str = &tag.name;
        let start = tag.kind == TagKind::StartTag;
        let next = if start {
            raw_content(name).unwrap_or(TokenSinkResult::Continue)
        } else {
            TokenSinkResult::Continue
        };

        if let Some((skipped, depth)) = self.skipping.as_mut() {
            if skipped.as_str() == name && !VOID.contains(&name) {
                if start && !tag.self_closing {
                    *depth += 1;
                } else if !start {
                    *depth -= 1;
                    if *depth == 0 {
                        self.skipping = None;
                    }
                }
            }
            return next;
        }
        if start && is_dropped(tag) {
            if !tag.self_closing && !VOID.contains(&name) {
                self.skipping = Some((name.to_owned(), 1));
            }
            return next;
        }

        if name == "title" {
            if start && self.title.is_none() {
                self.title_buffer = Some(String::new());
            } else if !start {
                if let Some(buffer) = self.title_buffer.take() {
                    self.title = clean_title(&buffer);
                }
            }
            return next;
        }
        if name == "br" {
            self.current.push('\n');
            self.pending_space = false;
            return next;
        }
        if name == "pre" || name == "listing" {
            if start {
                if self.pre_depth == 0 {
                    self.start_block(BlockKind::Pre);
                }
                self.pre_depth += 1;
            } else if self.pre_depth > 0 {
                self.pre_depth -= 1;
                if self.pre_depth == 0 {
                    self.end_block();
                }
            }
            return next;
        }
        if self.pre_depth > 0 {
            return next;
        }
        if let Some(level) = heading_level(name) {
            if start {
                self.start_block(BlockKind::Heading(level));
            } else {
                self.end_block();
            }
        } else if name == "li" {
            if start {
                self.start_block(BlockKind::ListItem(self.list_depth.saturating_sub(1)));
            } else {
                self.end_block();
            }
        } else if name == "td" || name == "th" {
            if start && !self.current.trim().is_empty() {
                self.current.push_str(" |");
                self.pending_space = true;
            }
        } else if BLOCKS.contains(&name) {
            if name == "ul" || name == "ol" {
                self.list_depth = if start {
                    self.list_depth.saturating_add(1)
                } else {
                    self.list_depth.saturating_sub(1)
                };
            }
            if start {
                self.start_block(BlockKind::Paragraph);
            } else {
                self.end_block();
            }
            // After the block break, so text before `<main>` is not counted in it, and
            // text at its end is.
            if name == "main" {
                self.main_depth = if start {
                    self.main_depth.saturating_add(1)
                } else {
                    self.main_depth.saturating_sub(1)
                };
            }
        }
        next
    }

    fn text(&mut self, text: &str) {
        if self.skipping.is_some() {
            return;
        }
        if let Some(buffer) = self.title_buffer.as_mut() {
            buffer.push_str(text);
            return;
        }
        if self.pre_depth > 0 {
            self.current.push_str(text);
            return;
        }
        for c in text.chars() {
            if c.is_whitespace() {
                self.pending_space = true;
            } else {
                if self.pending_space && !self.current.is_empty() && !self.current.ends_with('\n') {
                    self.current.push(' ');
                }
                self.pending_space = false;
                self.current.push(c);
            }
        }
    }

    /// Ends the current block and starts one of `kind`. A generic paragraph opened right
    /// after a list item or heading (`<li><p>…`) keeps the more specific kind.
    fn start_block(&mut self, kind: BlockKind) {
        self.flush();
        match (self.kind, kind) {
            (Some(BlockKind::ListItem(_) | BlockKind::Heading(_)), BlockKind::Paragraph) => {}
            _ => self.kind = Some(kind),
        }
    }

    fn end_block(&mut self) {
        self.flush();
        self.kind = None;
    }

    fn flush(&mut self) {
        let raw = std::mem::take(&mut self.current);
        self.pending_space = false;
        let kind = self.kind.unwrap_or(BlockKind::Paragraph);
        let text = if kind == BlockKind::Pre {
            raw.trim_start_matches('\n').trim_end().to_owned()
        } else {
            raw.lines()
                .map(str::trim)
                .filter(|line| !line.is_empty())
                .collect::<Vec<_>>()
                .join("\n")
        };
        if text.trim().is_empty() {
            return;
        }
        let in_main = self.main_depth > 0;
        if kind == BlockKind::Heading(1) {
            if self.first_h1.is_none() {
                self.first_h1 = clean_title(&text);
            }
            if in_main && self.first_main_h1.is_none() {
                self.first_main_h1 = clean_title(&text);
            }
        }
        self.blocks.push(Block {
            kind,
            text,
            in_main,
        });
        // The block is written; what follows is a plain paragraph unless told otherwise.
        self.kind = None;
    }

    fn finish(self) -> ReadableHtml {
        let mut text = String::new();
        let mut previous: Option<BlockKind> = None;
        let main_only = self.blocks.iter().any(|b| b.in_main);
        for block in self.blocks.iter().filter(|b| b.in_main || !main_only) {
            if let Some(previous) = previous {
                let both_items = matches!(previous, BlockKind::ListItem(_))
                    && matches!(block.kind, BlockKind::ListItem(_));
                text.push_str(if both_items { "\n" } else { "\n\n" });
            }
            match block.kind {
                BlockKind::Paragraph => text.push_str(&block.text),
                BlockKind::Heading(level) => {
                    text.push_str(&"#".repeat(level));
                    text.push(' ');
                    text.push_str(&block.text.replace('\n', " "));
                }
                BlockKind::ListItem(depth) => {
                    text.push_str(&"  ".repeat(depth.min(8)));
                    text.push_str("- ");
                    text.push_str(&block.text.replace('\n', " "));
                }
                BlockKind::Pre => {
                    let fence = "`".repeat(longest_backtick_run(&block.text).max(2) + 1);
                    text.push_str(&fence);
                    text.push('\n');
                    text.push_str(&block.text);
                    text.push('\n');
                    text.push_str(&fence);
                }
            }
            previous = Some(block.kind);
        }
        ReadableHtml {
            title: self.title.or(self.first_main_h1).or(self.first_h1),
            text,
        }
    }
}

fn longest_backtick_run(text: &str) -> usize {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    longest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readable_text_of_a_page() {
        let page = r#"<!doctype html>
<html><head><title> The  Page &amp; Co </title>
<style>body { color: red }</style><script>var x = "<p>no</p>";</script></head>
<body>
<header><h1>Site name</h1></header>
<nav><ul><li>Home</li><li>About</li></ul></nav>
<main>
  <h1>Article &lt;One&gt;</h1>
  <p>First   paragraph
     with <b>bold</b> and&nbsp;entities &eacute;.</p>
  <p>Second paragraph.</p>
  <ul><li>one</li><li><p>two</p></li></ul>
  <h2>Code</h2>
  <pre><code>fn main() {
    println!("hi");
}</code></pre>
  <form><input value="secret"><button>Go</button></form>
  <div hidden>hidden text</div>
</main>
<aside>Related links</aside>
<footer>Copyright</footer>
<noscript>Enable JS</noscript>
<svg><text>svg text</text></svg>
</body></html>"#;
        let readable = readable_html(page);
        assert_eq!(readable.title.as_deref(), Some("The Page & Co"));
        let want = "# Article <One>\n\n\
                    First paragraph with bold and entities é.\n\n\
                    Second paragraph.\n\n\
                    - one\n\
                    - two\n\n\
                    ## Code\n\n\
                    ```\nfn main() {\n    println!(\"hi\");\n}\n```";
        assert_eq!(readable.text, want);
    }

    #[test]
    fn a_page_with_main_content_is_read_from_there() {
        let page = "<html><body><div id=\"help\"><h1>Keyboard shortcuts</h1><p>Press ? to show \
                    this help.</p></div><div class=\"menu\"><h1 class=\"menu-title\">The Book</h1>\
                    </div><main><h1>Ownership</h1><p>Each value has an owner.</p></main>\
                    <div>Footer text</div></body></html>";
        let read = readable_html(page);
        assert_eq!(read.text, "# Ownership\n\nEach value has an owner.");
        assert_eq!(read.title.as_deref(), Some("Ownership"));
        // Without <main>, everything readable is kept.
        let plain = readable_html("<h1>Keyboard shortcuts</h1><p>Press ? for help.</p>");
        assert!(plain.text.starts_with("# Keyboard shortcuts"));
        // An empty <main> keeps the rest.
        let empty = readable_html("<p>Body text here.</p><main> </main>");
        assert_eq!(empty.text, "Body text here.");
    }

    #[test]
    fn title_falls_back_to_first_h1() {
        let readable = readable_html("<p>intro</p><h1> Main   heading </h1><h1>Second</h1>");
        assert_eq!(readable.title.as_deref(), Some("Main heading"));
        assert_eq!(readable_html("<p>x</p>").title, None);
    }

    #[test]
    fn nested_lists_and_tables() {
        let readable = readable_html(
            "<ul><li>a<ul><li>b</li></ul></li><li>c</li></ul>\
             <table><tr><th>k</th><th>v</th></tr><tr><td>1</td><td>2</td></tr></table>",
        );
        assert_eq!(readable.text, "- a\n  - b\n- c\n\nk | v\n\n1 | 2");
    }

    #[test]
    fn pre_with_backticks_gets_a_longer_fence() {
        let readable = readable_html("<pre>```\ncode\n```</pre>");
        assert_eq!(readable.text, "````\n```\ncode\n```\n````");
    }

    #[test]
    fn deeply_nested_tags_do_not_overflow_the_stack() {
        let depth = 50_000;
        let page = format!(
            "{}deep text{}",
            "<div><span>".repeat(depth),
            "</span></div>".repeat(depth)
        );
        let readable = readable_html(&page);
        assert_eq!(readable.text, "deep text");
    }

    #[test]
    fn ten_megabytes_of_text_is_linear() {
        let word = "lorem ipsum &amp; dolor <b>sit</b> amet<br>\n";
        let page = format!("<p>{}</p>", word.repeat(10 * 1024 * 1024 / word.len()));
        let readable = readable_html(&page);
        assert!(readable.text.len() > 5 * 1024 * 1024);
        assert!(readable
            .text
            .starts_with("lorem ipsum & dolor sit amet\nlorem"));
    }

    #[test]
    fn unclosed_dropped_elements_and_raw_text() {
        let readable = readable_html(
            "<p>kept</p><script>document.write('</p><nav>')</script>\
             <nav><nav>inner</nav>still nav</nav><p>after</p>\
             <style>p::before { content: '</style>' }</style>\
             <div aria-hidden=\"true\"><div>x</div>y</div><p>end</p><aside>never closed",
        );
        assert_eq!(readable.text, "kept\n\nafter\n\n' }\n\nend");
    }

    #[test]
    fn unclosed_and_garbage_markup_is_survivable() {
        // What a reader gets from broken pages: text stays text (a lone `<` included),
        // unfinished tags and scripts give nothing, bad character references become U+FFFD,
        // unknown ones stay as written.
        let cases = [
            ("", ""),
            ("<", "<"),
            ("<<<>>>", "<<<>>>"),
            ("<p", ""),
            ("<title>", ""),
            ("<pre>", ""),
            ("</li></ul></pre></title>", ""),
            ("<table><td><li><pre><h1>x", "```\nx\n```"),
            ("&#0; &#xD800; &bogus; &amp", "\u{FFFD} \u{FFFD} &bogus; &"),
            ("<script>never closed", ""),
        ];
        for (page, text) in cases {
            let readable = readable_html(page);
            assert_eq!(readable.text, text, "{page:?}");
            assert_eq!(readable.title, None, "{page:?}");
        }
    }
}
