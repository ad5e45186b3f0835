//! What an ask prompt shows, pure: each page found as one block (title, other names,
//! summary, claims with their quotes, text), or each passage of a raw source as one block
//! titled by its source ([`passage_block`]), best first, as many as the model's context
//! holds beside a full answer.

use crate::store::Page;

/// The fewest characters of a page worth sending when only part of it fits.
pub const MIN_PART: usize = 600;

/// One page as the ask prompt shows it.
pub fn page_block(page: &Page) -> String {
    let mut block = format!("<<<PAGE {}\n", one_line(&page.title));
    let aliases: Vec<&str> = page
        .aliases
        .iter()
        .map(String::as_str)
        .filter(|a| crate::store::page_key(a) != crate::store::page_key(&page.title))
        .collect();
    if !aliases.is_empty() {
        block.push_str(&format!("Also called: {}\n", aliases.join(", ")));
    }
    if !page.summary.trim().is_empty() {
        block.push_str(&format!("Summary: {}\n", page.summary.trim()));
    }
    if !page.claims.is_empty() {
        block.push_str("Claims:\n");
        for c in &page.claims {
            block.push_str(&format!("- {}", one_line(&c.claim.claim)));
            if let Some(q) = c.claim.quote.as_deref().filter(|q| !q.trim().is_empty()) {
                block.push_str(&format!(" (quote: \"{}\")", one_line(q)));
            }
            block.push('\n');
        }
    }
    if !page.body.trim().is_empty() {
        block.push_str("Text:\n");
        block.push_str(page.body.trim());
        block.push('\n');
    }
    block.push_str("PAGE>>>\n");
    block
}

/// One passage of a raw source as the ask prompt shows it: a block titled by the source's
/// name, holding the passage as its text (the same markers as a page, so the same `ask`
/// template reads both).
pub fn passage_block(source: &str, passage: &str) -> String {
    format!(
        "<<<PAGE {}\nText:\n{}\nPAGE>>>\n",
        one_line(source),
        passage.trim()
    )
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A page's own words, as a citation of it is checked: its title, summary and body, then
/// each claim and the quote grounding confirmed for it (a quote never confirmed is not the
/// page's words), a line each. The one place that says which text of a page a quote may
/// come from; the block's wrapper lines (`<<<PAGE`, `Summary:`, `Claims:`, …) are not in it.
pub fn page_words(page: &Page) -> String {
    let mut text = format!("{}\n{}\n{}\n", page.title, page.summary, page.body);
    for c in &page.claims {
        text.push_str(&c.claim.claim);
        text.push('\n');
        if let Some(q) = c.claim.quote.as_ref().filter(|_| c.claim.grounded) {
            text.push_str(q);
            text.push('\n');
        }
    }
    text
}

/// One block of an ask prompt: the name a claim cites it by, the text that shows it, and
/// the words in it a quote may be drawn from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// The page's title, or the source's name for a passage.
    pub title: String,
    /// The block as sent ([`page_block`], [`passage_block`]).
    pub text: String,
    /// What the block shows of the page's own words ([`page_words`]) or the passage,
    /// without the block's wrapper lines: what an answer's quotes are drawn from.
    pub quotable: String,
}

impl Block {
    /// The block of a wiki page.
    pub fn page(page: &Page) -> Block {
        Block {
            title: page.title.clone(),
            text: page_block(page),
            quotable: page_words(page),
        }
    }

    /// The block of one passage of the raw source named `source`.
    pub fn passage(source: &str, passage: &str) -> Block {
        Block {
            title: source.to_owned(),
            text: passage_block(source, passage),
            quotable: passage.trim().to_owned(),
        }
    }
}

/// The blocks sent, and the text that sends them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Fitted {
    /// The blocks, in order.
    pub text: String,
    /// The blocks sent (whole or in part), in order, by their index in the blocks given.
    pub read: Vec<usize>,
    /// The blocks sent only in part, by index.
    pub cut: Vec<usize>,
}

/// Fits `blocks` (best first) into `room` characters: whole while they fit; a block that
/// does not fit is cut at a line or word when at least `MIN_PART` (600) characters are left,
/// else left out, and the next (smaller) blocks are still tried.
pub fn fit_blocks(blocks: &[Block], room: usize) -> Fitted {
    let mut fitted = Fitted::default();
    for (i, block) in blocks.iter().enumerate() {
        let left = room.saturating_sub(fitted.text.len());
        if block.text.len() <= left {
            fitted.text.push_str(&block.text);
            fitted.read.push(i);
            continue;
        }
        const CLOSE: &str = "\n[…]\nPAGE>>>\n";
        if left >= MIN_PART + CLOSE.len() {
            let cut = cut_at_word(&block.text, left - CLOSE.len());
            fitted.text.push_str(cut.trim_end());
            fitted.text.push_str(CLOSE);
            fitted.read.push(i);
            fitted.cut.push(i);
        }
    }
    fitted
}

/// The longest start of `text` of at most `max` bytes that ends at a line or word break
/// (or on a character, when there is none).
fn cut_at_word(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let head = &text[..end];
    match head.rfind(['\n', ' ']) {
        Some(i) if i > max / 2 => &head[..i],
        _ => head,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(title: &str, body: &str) -> Block {
        Block::passage(title, body)
    }

    #[test]
    fn pages_fit_whole_then_in_part_then_not_at_all() {
        let pages = [
            page("Espresso", &"crema ".repeat(50)),
            page("Grinders", &"burr ".repeat(400)),
            page("Tea", "leaves"),
        ];
        let titles = |read: &[usize]| -> Vec<&str> {
            read.iter().map(|&i| pages[i].title.as_str()).collect()
        };
        let fitted = fit_blocks(&pages, 1200);
        assert_eq!(
            titles(&fitted.read),
            ["Espresso", "Grinders"],
            "the cut page fills the room"
        );
        assert_eq!(titles(&fitted.cut), ["Grinders"]);
        assert!(fitted.text.len() <= 1200, "{}", fitted.text.len());
        assert!(fitted.text.contains("burr […]") || fitted.text.contains("burr\n[…]"));

        let small = fit_blocks(&pages, 400);
        assert_eq!(
            titles(&small.read),
            ["Espresso", "Tea"],
            "a page too big to cut is skipped"
        );
    }

    fn espresso_page() -> Page {
        use crate::contract::{CheckedClaim, Confidence};
        use crate::store::{PageClaim, PageId, PageKind};
        let claim = |text: &str, quote: &str, grounded| PageClaim {
            claim: CheckedClaim {
                claim: text.into(),
                confidence: Confidence::Sourced,
                quote: Some(quote.into()),
                grounded,
            },
            source_ids: Vec::new(),
            cited_page: None,
            author: Default::default(),
        };
        Page {
            id: PageId(1),
            kind: PageKind::Topic,
            title: "Espresso".into(),
            summary: "Coffee forced through fine grounds.".into(),
            body: "Espresso is brewed at nine bars.".into(),
            version: 1,
            stale_reason: None,
            flagged: None,
            created_at: String::new(),
            updated_at: String::new(),
            claims: vec![
                claim("It needs pressure.", "brewed at nine bars", true),
                claim("It is bitter.", "an invented quote", false),
            ],
            concepts: Vec::new(),
            open_questions: Vec::new(),
            links: Vec::new(),
            backlinks: Vec::new(),
            aliases: vec!["Caffè espresso".into()],
            tags: Vec::new(),
        }
    }

    /// Regression: an answer's quotes were drawn from the blocks as sent, so a quote could
    /// be a wrapper line (`<<<PAGE Espresso`, `Summary: …`) that no page holds.
    #[test]
    fn an_answer_quotes_a_pages_own_words_never_the_blocks_wrapper_lines() {
        let page = espresso_page();
        let block = Block::page(&page);
        assert!(
            block.text.starts_with("<<<PAGE Espresso\n"),
            "{}",
            block.text
        );
        for wrapper in [
            "<<<PAGE",
            "PAGE>>>",
            "Summary:",
            "Claims:",
            "Text:",
            "(quote:",
            "Also called:",
        ] {
            assert!(block.text.contains(wrapper), "{wrapper} is in the block");
            assert!(!block.quotable.contains(wrapper), "{wrapper} is quotable");
        }
        for words in [
            "Coffee forced through fine grounds.",
            "Espresso is brewed at nine bars.",
            "It needs pressure.",
            "brewed at nine bars",
        ] {
            assert!(block.quotable.contains(words), "{words}");
        }
        // A quote grounding never confirmed is not the page's words.
        assert!(!block.quotable.contains("an invented quote"));
        assert_eq!(block.quotable, page_words(&page));

        let passage = Block::passage("Cold Brew", "  Steep it for 16 hours.\n");
        assert_eq!(passage.quotable, "Steep it for 16 hours.");
        assert_eq!(passage.title, "Cold Brew");
    }

    #[test]
    fn a_passage_is_a_block_titled_by_its_source() {
        assert_eq!(
            passage_block("Cold\nBrew", "  Steep it for 16 hours.\n"),
            "<<<PAGE Cold Brew\nText:\nSteep it for 16 hours.\nPAGE>>>\n"
        );
    }

    #[test]
    fn a_cut_never_splits_a_character() {
        let text = "é".repeat(1000);
        let cut = cut_at_word(&text, 701);
        assert!(cut.len() <= 701 && text.starts_with(cut));
    }
}
