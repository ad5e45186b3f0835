//! Finding wiki links (every form [`LinkRef`] reads) in markdown.
//!
//! Wiki links are found in the text events of pulldown-cmark, so code spans, code blocks,
//! raw HTML and link destinations never hold one. A link must sit inside one run of text:
//! it cannot span lines or emphasis.

use pulldown_cmark::{Event, Parser, Tag, TagEnd};
use serde::Serialize;

use super::link::{Anchor, LinkRef};

/// How long a link's context may be, in characters (not counting the `…` marks).
const MAX_CONTEXT_CHARS: usize = 200;

/// One wiki link to a page found in a markdown body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WikiLink {
    /// The linked page's name (`Title` in `[[folder/Title#Heading|shown]]`).
    pub target: String,
    /// The heading or block linked to, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub anchor: Option<Anchor>,
    /// The text shown instead of the title, when given and not blank.
    pub shown: Option<String>,
    /// The sentence (or line) around the link, with wiki-link markup replaced by the shown
    /// text and whitespace collapsed, cut to about 200 characters around the link.
    pub context: String,
}

/// A piece of a text run: plain text or a wiki link (an embed included).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece<'a> {
    /// Text as written.
    Text(&'a str),
    /// A link or embed.
    Link(LinkRef),
}

impl Piece<'_> {
    /// What a reader sees for this piece.
    pub fn display(&self) -> String {
        match self {
            Piece::Text(text) => (*text).to_owned(),
            Piece::Link(link) => link.display(),
        }
    }
}

/// Splits a run of text into plain text and wiki links; a `!` right before `[[` makes the
/// link an embed and belongs to it.
pub fn split_wiki_links(text: &str) -> Vec<Piece<'_>> {
    let mut pieces = Vec::new();
    let mut plain_from = 0;
    let mut search_from = 0;
    while let Some(open) = text[search_from..].find("[[").map(|i| i + search_from) {
        let Some(close) = text[open + 2..].find("]]").map(|i| i + open + 2) else {
            break;
        };
        // `[[[Title]]]`, `[[a [[b]]`: the link opens at the last `[[` before the `]]`.
        let open = text[open..close].rfind("[[").map_or(open, |i| i + open);
        let inner = &text[open + 2..close];
        let embed = open > plain_from && text[..open].ends_with('!');
        if let Some(link) = LinkRef::parse(inner, embed) {
            let text_end = if embed { open - 1 } else { open };
            if plain_from < text_end {
                pieces.push(Piece::Text(&text[plain_from..text_end]));
            }
            pieces.push(Piece::Link(link));
            plain_from = close + 2;
        }
        search_from = close + 2;
    }
    if plain_from < text.len() {
        pieces.push(Piece::Text(&text[plain_from..]));
    }
    pieces
}

/// A markdown event, or a run of text where wiki links may appear.
pub enum Item<'a> {
    /// Merged consecutive text events outside code blocks, links and images.
    Text(String),
    /// Any other event; the flag tells whether it is inside a code block.
    Event(Event<'a>, bool),
}

/// The events of `parser` with the text where wiki links may appear merged into runs
/// (pulldown-cmark splits text at brackets). Text inside code blocks, links and images stays
/// an ordinary event.
pub fn text_runs(parser: Parser<'_>) -> Vec<Item<'_>> {
    let mut items = Vec::new();
    let mut code_block_depth = 0usize;
    let mut link_depth = 0usize;
    let mut run: Option<String> = None;
    for event in parser {
        if let Event::Text(text) = &event {
            if code_block_depth == 0 && link_depth == 0 {
                run.get_or_insert_with(String::new).push_str(text);
                continue;
            }
        }
        if let Some(text) = run.take() {
            items.push(Item::Text(text));
        }
        match &event {
            Event::Start(Tag::CodeBlock(_)) => code_block_depth += 1,
            Event::End(TagEnd::CodeBlock) => code_block_depth = code_block_depth.saturating_sub(1),
            Event::Start(Tag::Link { .. } | Tag::Image { .. }) => link_depth += 1,
            Event::End(TagEnd::Link | TagEnd::Image) => link_depth = link_depth.saturating_sub(1),
            _ => {}
        }
        items.push(Item::Event(event, code_block_depth > 0));
    }
    if let Some(text) = run.take() {
        items.push(Item::Text(text));
    }
    items
}

/// Every wiki link to a page in a markdown body, in order, outside code spans and code
/// blocks: embeds of notes included; links inside the page (`[[#Heading]]`), attachments
/// (`![[photo.jpg]]`) and empty targets (`[[ ]]`, `[[|shown]]`) left out.
pub fn wiki_links(markdown: &str) -> Vec<WikiLink> {
    let mut collector = ContextCollector::default();
    for item in text_runs(Parser::new_ext(markdown, super::options())) {
        match item {
            Item::Text(text) => {
                for piece in split_wiki_links(&text) {
                    collector.push_piece(&piece);
                }
            }
            Item::Event(event, in_code_block) => match event {
                Event::Text(text) if !in_code_block => collector.block.push_str(&text),
                Event::Code(code) => collector.block.push_str(&code),
                Event::SoftBreak | Event::HardBreak => collector.block.push(' '),
                Event::Start(tag) if !is_inline(&tag) => collector.finish_block(),
                Event::End(tag) if !is_inline_end(tag) => collector.finish_block(),
                _ => {}
            },
        }
    }
    collector.finish_block();
    collector.links
}

/// `markdown` with each wiki link outside code rewritten by `rewrite`: `Some(text)` puts
/// `text` where the link was written (its `[[…]]` and any `!`), `None` keeps it as it is.
/// Links are found as [`wiki_links`] finds them, in the raw text of each run outside code
/// spans, code blocks and markdown links.
pub fn rewrite_links(markdown: &str, rewrite: &dyn Fn(&LinkRef) -> Option<String>) -> String {
    // The byte ranges that are code (spans and blocks) or inside markdown links: no wiki
    // link is read there.
    let mut closed: Vec<std::ops::Range<usize>> = Vec::new();
    let mut depth = 0usize;
    let mut opened_at = 0usize;
    for (event, range) in Parser::new_ext(markdown, super::options()).into_offset_iter() {
        match event {
            Event::Code(_) if depth == 0 => closed.push(range),
            Event::Start(Tag::CodeBlock(_) | Tag::Link { .. } | Tag::Image { .. }) => {
                if depth == 0 {
                    opened_at = range.start;
                }
                depth += 1;
            }
            Event::End(TagEnd::CodeBlock | TagEnd::Link | TagEnd::Image) => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    closed.push(opened_at..range.end);
                }
            }
            _ => {}
        }
    }
    // The ranges come in document order and do not overlap: a binary search finds the
    // one that may hold a position.
    let in_closed = |at: usize| {
        let i = closed.partition_point(|r| r.start <= at);
        i > 0 && closed[i - 1].contains(&at)
    };
    let mut out = String::with_capacity(markdown.len());
    let mut copied = 0;
    let mut search = 0;
    while let Some(open) = markdown[search..].find("[[").map(|i| i + search) {
        let Some(close) = markdown[open + 2..].find("]]").map(|i| i + open + 2) else {
            break;
        };
        let open = markdown[open..close].rfind("[[").map_or(open, |i| i + open);
        search = close + 2;
        if in_closed(open) {
            continue;
        }
        let embed = open > copied && markdown[..open].ends_with('!');
        let Some(link) = LinkRef::parse(&markdown[open + 2..close], embed) else {
            continue;
        };
        if let Some(text) = rewrite(&link) {
            let start = if embed { open - 1 } else { open };
            out.push_str(&markdown[copied..start]);
            out.push_str(&text);
            copied = close + 2;
        }
    }
    out.push_str(&markdown[copied..]);
    out
}

/// Whether a tag sits inside a line of text (emphasis, a link, an image): its start and end
/// separate no blocks, and a rendered page shows no space at its edges.
pub fn is_inline(tag: &Tag<'_>) -> bool {
    matches!(
        tag,
        Tag::Emphasis
            | Tag::Strong
            | Tag::Strikethrough
            | Tag::Superscript
            | Tag::Subscript
            | Tag::Link { .. }
            | Tag::Image { .. }
    )
}

/// Whether a tag's end sits inside a line of text (see [`is_inline`]).
pub fn is_inline_end(tag: TagEnd) -> bool {
    matches!(
        tag,
        TagEnd::Emphasis
            | TagEnd::Strong
            | TagEnd::Strikethrough
            | TagEnd::Superscript
            | TagEnd::Subscript
            | TagEnd::Link
            | TagEnd::Image
    )
}

/// Collects the plain text of one block and the links found in it.
#[derive(Default)]
struct ContextCollector {
    block: String,
    /// Links of the current block: byte range of the shown text in `block`, target, shown.
    pending: Vec<(usize, usize, LinkRef)>,
    links: Vec<WikiLink>,
}

impl ContextCollector {
    fn push_piece(&mut self, piece: &Piece<'_>) {
        let start = self.block.len();
        self.block.push_str(&piece.display());
        if let Piece::Link(link) = piece {
            if link.names_page() {
                self.pending.push((start, self.block.len(), link.clone()));
            }
        }
    }

    fn finish_block(&mut self) {
        for (start, end, link) in self.pending.drain(..) {
            let context = context_around(&self.block, start, end);
            self.links.push(WikiLink {
                target: link.target,
                anchor: link.anchor,
                shown: link.shown,
                context,
            });
        }
        self.block.clear();
    }
}

/// The sentence of `block` holding the byte range `start..end`, whitespace collapsed and cut
/// to about [`MAX_CONTEXT_CHARS`] characters around the range.
fn context_around(block: &str, start: usize, end: usize) -> String {
    let ends_sentence = |i: usize, c: char| {
        matches!(c, '.' | '!' | '?')
            && block[i + c.len_utf8()..]
                .chars()
                .next()
                .is_none_or(char::is_whitespace)
    };
    let sentence_start = block[..start]
        .char_indices()
        .rev()
        .find(|&(i, c)| c == '\n' || ends_sentence(i, c))
        .map_or(0, |(i, c)| i + c.len_utf8());
    let sentence_end = block[end..]
        .char_indices()
        .find(|&(i, c)| c == '\n' || ends_sentence(end + i, c))
        .map_or(block.len(), |(i, c)| {
            if c == '\n' {
                end + i
            } else {
                end + i + c.len_utf8()
            }
        });

    // Collapse whitespace, remembering where the link lands (in characters).
    let mut chars: Vec<char> = Vec::new();
    let mut link_start = 0;
    let mut link_end = 0;
    let mut pending_space = false;
    for (i, c) in block[sentence_start..sentence_end].char_indices() {
        let at = sentence_start + i;
        if at == start {
            link_start = chars.len() + usize::from(pending_space && !chars.is_empty());
        }
        if c.is_whitespace() {
            pending_space = true;
            continue;
        }
        if pending_space && !chars.is_empty() {
            chars.push(' ');
        }
        pending_space = false;
        chars.push(c);
        if at < end {
            link_end = chars.len();
        }
    }
    link_end = link_end.max(link_start);

    if chars.len() <= MAX_CONTEXT_CHARS {
        return chars.into_iter().collect();
    }
    let link_len = link_end - link_start;
    if link_len >= MAX_CONTEXT_CHARS {
        let mut cut: String = chars[link_start..link_start + MAX_CONTEXT_CHARS]
            .iter()
            .collect();
        cut.push('…');
        return cut;
    }
    let budget = MAX_CONTEXT_CHARS - link_len;
    let after_available = chars.len() - link_end;
    let before = link_start
        .min(budget / 2)
        .max(budget.saturating_sub(after_available));
    let before = before.min(link_start);
    let after = (budget - before).min(after_available);
    let from = link_start - before;
    let to = link_end + after;
    let mut context = String::new();
    if from > 0 {
        context.push('…');
    }
    context.extend(&chars[from..to]);
    if to < chars.len() {
        context.push('…');
    }
    context
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link(target: &str, shown: Option<&str>, context: &str) -> WikiLink {
        WikiLink {
            target: target.to_owned(),
            anchor: None,
            shown: shown.map(str::to_owned),
            context: context.to_owned(),
        }
    }

    #[test]
    fn splits_text_runs() {
        let cases: &[(&str, Vec<Piece<'_>>)] = &[
            ("plain", vec![Piece::Text("plain")]),
            (
                "a [[ B ]] c",
                vec![
                    Piece::Text("a "),
                    Piece::Link(LinkRef::parse("B", false).unwrap()),
                    Piece::Text(" c"),
                ],
            ),
            (
                "[[T| shown | more ]]",
                vec![Piece::Link(
                    LinkRef::parse("T|shown | more", false).unwrap(),
                )],
            ),
            (
                "[[T|  ]]",
                vec![Piece::Link(LinkRef::parse("T", false).unwrap())],
            ),
            ("[[ ]] [[|x]]", vec![Piece::Text("[[ ]] [[|x]]")]),
            (
                "[[[T]]]",
                vec![
                    Piece::Text("["),
                    Piece::Link(LinkRef::parse("T", false).unwrap()),
                    Piece::Text("]"),
                ],
            ),
            (
                "[[a [[b]]",
                vec![
                    Piece::Text("[[a "),
                    Piece::Link(LinkRef::parse("b", false).unwrap()),
                ],
            ),
            ("[[unclosed", vec![Piece::Text("[[unclosed")]),
            ("]] [[", vec![Piece::Text("]] [[")]),
        ];
        for (text, want) in cases {
            assert_eq!(&split_wiki_links(text), want, "for {text:?}");
        }
    }

    #[test]
    fn finds_links_with_their_sentence() {
        let markdown = "# About [[Rust]]\n\n\
            Ownership is strict. It is enforced by [[Borrow checker|the borrow checker]] at \
            compile time! Other text.\n\n\
            - a list item with [[Cargo]]\n\
            - `[[not a link]]` and [[ Spaced Title ]]\n\n\
            ```\n[[not in code]]\n```\n\n\
            [a [[link in link]]](https://example.com) and [[|empty]] and [[ ]]\n\n\
            | col |\n|---|\n| cell [[Table link\\|shown]] |\n";
        let links = wiki_links(markdown);
        assert_eq!(
            links,
            vec![
                link("Rust", None, "About Rust"),
                link(
                    "Borrow checker",
                    Some("the borrow checker"),
                    "It is enforced by the borrow checker at compile time!"
                ),
                link("Cargo", None, "a list item with Cargo"),
                link("Spaced Title", None, "[[not a link]] and Spaced Title"),
                link("Table link", Some("shown"), "cell shown"),
            ]
        );
    }

    #[test]
    fn links_are_rewritten_outside_code_only() {
        let markdown = "A [[Keep]] and [[Drop|shown]] and ![[Drop]].\n\n`[[Drop]]`\n\n\
                        ```\n[[Drop]]\n```\n\n[x [[Drop]]](https://e.com) [[Drop#H]]";
        let out = rewrite_links(markdown, &|l| (l.target == "Drop").then(|| l.display()));
        assert_eq!(
            out,
            "A [[Keep]] and shown and Drop.\n\n`[[Drop]]`\n\n```\n[[Drop]]\n```\n\n\
             [x [[Drop]]](https://e.com) Drop > H"
        );
        assert_eq!(rewrite_links("[[a", &|_| Some(String::new())), "[[a");
    }

    #[test]
    fn embeds_anchors_and_attachments() {
        let markdown = "See ![[Espresso]] and ![[photo.png|200]], [[#Local]], \
            [[Grind#Burr|burrs]], [[Grind#^b1]] and [[notes/Water.md]].";
        let pieces = split_wiki_links("a ![[x.png]] b");
        assert_eq!(pieces[0], Piece::Text("a "), "the ! belongs to the embed");
        assert!(matches!(&pieces[1], Piece::Link(l) if l.embed && l.attachment));
        let links = wiki_links(markdown);
        let found: Vec<(&str, Option<String>)> = links
            .iter()
            .map(|l| (l.target.as_str(), l.anchor.as_ref().map(Anchor::written)))
            .collect();
        assert_eq!(
            found,
            vec![
                ("Espresso", None),
                ("Grind", Some("Burr".to_owned())),
                ("Grind", Some("^b1".to_owned())),
                ("Water", None),
            ]
        );
    }

    #[test]
    fn long_contexts_are_cut_around_the_link() {
        let before = "word ".repeat(100);
        let after = " more".repeat(100);
        let links = wiki_links(&format!("{before}[[Target]]{after}"));
        let context = &links[0].context;
        assert!(context.contains("Target"), "{context}");
        assert!(
            context.starts_with('…') && context.ends_with('…'),
            "{context}"
        );
        assert!(
            context.chars().count() <= MAX_CONTEXT_CHARS + 2,
            "{context}"
        );

        let links = wiki_links(&format!("[[Start]]{after}"));
        assert!(
            links[0].context.starts_with("Start more"),
            "{}",
            links[0].context
        );
        let links = wiki_links(&format!("{before}[[End]]."));
        assert!(
            links[0].context.ends_with("word End."),
            "{}",
            links[0].context
        );
    }
}
