//! What an ask prompt shows of the pages found, pure: each page as one block (title,
//! other names, summary, claims with their quotes, text), best page first, as many as the
//! model's context holds beside a full answer.

use crate::store::{Page, PageId};

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

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The pages sent, and the text that sends them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Fitted {
    /// The blocks, in order.
    pub text: String,
    /// The pages sent (whole or in part), in order, by id and title.
    pub read: Vec<(PageId, String)>,
    /// The pages sent only in part.
    pub cut: Vec<String>,
}

/// Fits `pages` (best first; each with its block) into `room` characters: whole while
/// they fit; a page that does not fit is cut at a line or word when at least
/// [`MIN_PART`] characters are left, else left out, and the next (smaller) pages are
/// still tried.
pub fn fit_pages(pages: &[(PageId, String, String)], room: usize) -> Fitted {
    let mut fitted = Fitted::default();
    for (id, title, block) in pages {
        let left = room.saturating_sub(fitted.text.len());
        if block.len() <= left {
            fitted.text.push_str(block);
            fitted.read.push((*id, title.clone()));
            continue;
        }
        const CLOSE: &str = "\n[…]\nPAGE>>>\n";
        if left >= MIN_PART + CLOSE.len() {
            let cut = cut_at_word(block, left - CLOSE.len());
            fitted.text.push_str(cut.trim_end());
            fitted.text.push_str(CLOSE);
            fitted.read.push((*id, title.clone()));
            fitted.cut.push(title.clone());
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

    fn page(id: i64, title: &str, body: &str) -> (PageId, String, String) {
        let block = format!("<<<PAGE {title}\nText:\n{body}\nPAGE>>>\n");
        (PageId(id), title.to_owned(), block)
    }

    #[test]
    fn pages_fit_whole_then_in_part_then_not_at_all() {
        let pages = [
            page(1, "Espresso", &"crema ".repeat(50)),
            page(2, "Grinders", &"burr ".repeat(400)),
            page(3, "Tea", "leaves"),
        ];
        let fitted = fit_pages(&pages, 1200);
        let titles: Vec<&str> = fitted.read.iter().map(|(_, t)| t.as_str()).collect();
        assert_eq!(
            titles,
            ["Espresso", "Grinders"],
            "the cut page fills the room"
        );
        assert_eq!(fitted.cut, ["Grinders"]);
        assert!(fitted.text.len() <= 1200, "{}", fitted.text.len());
        assert!(fitted.text.contains("burr […]") || fitted.text.contains("burr\n[…]"));

        let small = fit_pages(&pages, 400);
        let titles: Vec<&str> = small.read.iter().map(|(_, t)| t.as_str()).collect();
        assert_eq!(
            titles,
            ["Espresso", "Tea"],
            "a page too big to cut is skipped"
        );
    }

    #[test]
    fn a_cut_never_splits_a_character() {
        let text = "é".repeat(1000);
        let cut = cut_at_word(&text, 701);
        assert!(cut.len() <= 701 && text.starts_with(cut));
    }
}
