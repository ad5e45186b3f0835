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

/// One block of an ask prompt: the name a claim cites it by, and the text that shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// The page's title, or the source's name for a passage.
    pub title: String,
    /// The block as sent ([`page_block`], [`passage_block`]).
    pub text: String,
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
        Block {
            title: title.to_owned(),
            text: passage_block(title, body),
        }
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
