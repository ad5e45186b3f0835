//! Re-anchoring citations when a document's text changes: a 300-page document of about
//! 1.7 MB of text (the generated two-column PDF of `scripts/bench-documents.sh` reads to
//! as much) with one cited quote per page, ingested again after
//! - a word inserted on its first page (every citation moves),
//! - a paragraph holding a quote moved to the end (one is found far from its old place),
//! - 30 quotes deleted (30 fuzzy searches that find nothing: the slow path),
//!
//! each timed (median of 5) beside the same ingest of the same texts into a wiki where no
//! claim cites the document (its text, pages and search rows written, no citation to
//! anchor), in the same run. Run with `cargo bench --bench reanchor`.

use std::time::{Duration, Instant};

use wikimind::contract::{CheckedClaim, Confidence};
use wikimind::store::{fixtures, NewSource, SaveArticle, SourceKind, SourcePage, Store};

#[path = "support/lcg.rs"]
mod lcg;
use lcg::Lcg;

const PAGES: usize = 300;
const RUNS: usize = 5;

/// A document of `PAGES` pages of about 5,700 bytes, each of paragraphs of words from a
/// vocabulary of 3,000; each page's quote is eight words from the middle of its first
/// paragraph.
struct Book {
    pages: Vec<Vec<String>>,
    quotes: Vec<String>,
}

fn book() -> Book {
    let mut rng = Lcg(7);
    let syllables = [
        "ka", "lo", "mi", "ra", "te", "su", "ne", "vo", "di", "qu", "an", "el",
    ];
    let vocab: Vec<String> = (0..3_000)
        .map(|_| {
            (0..2 + rng.below(3))
                .map(|_| syllables[rng.below(12)])
                .collect()
        })
        .collect();
    let mut pages = Vec::new();
    let mut quotes = Vec::new();
    for _ in 0..PAGES {
        let mut paragraphs = Vec::new();
        let mut len = 0;
        while len < 5_700 {
            let words: Vec<&str> = (0..60 + rng.below(40))
                .map(|_| vocab[rng.below(vocab.len())].as_str())
                .collect();
            let paragraph = format!("{}.", words.join(" "));
            len += paragraph.len() + 2;
            paragraphs.push(paragraph);
        }
        let first: Vec<&str> = paragraphs[0].split(' ').collect();
        quotes.push(first[20..28].join(" "));
        pages.push(paragraphs);
    }
    Book { pages, quotes }
}

/// The document's text and where each page lies in it.
fn text_of(pages: &[Vec<String>]) -> (String, Vec<SourcePage>) {
    let mut text = String::new();
    let mut ranges = Vec::new();
    for (i, paragraphs) in pages.iter().enumerate() {
        if !text.is_empty() {
            text.push_str("\n\n");
        }
        let start = text.len();
        text.push_str(&paragraphs.join("\n\n"));
        ranges.push(SourcePage {
            number: i as u32 + 1,
            label: None,
            start,
            end: text.len(),
        });
    }
    (text, ranges)
}

fn source(text: &str) -> NewSource {
    NewSource {
        origin: "/books/book.pdf".to_owned(),
        kind: SourceKind::File,
        title: Some("Book".to_owned()),
        text: text.to_owned(),
        tags: Vec::new(),
        aliases: Vec::new(),
        root: None,
    }
}

/// A wiki in `dir` holding the document, and (when `cite`) a digest of it with one
/// sourced claim per page.
fn wiki(dir: &std::path::Path, book: &Book, cite: bool) -> Store {
    let store = Store::open(&dir.join("wikimind.db")).expect("open");
    let (text, pages) = text_of(&book.pages);
    let id = store
        .ingest_paged_source(&source(&text), None, &pages)
        .expect("ingest")
        .source_id();
    if cite {
        let claims: Vec<CheckedClaim> = book
            .quotes
            .iter()
            .enumerate()
            .map(|(i, quote)| CheckedClaim {
                claim: format!("Page {} says so.", i + 1),
                confidence: Confidence::Sourced,
                quote: Some(quote.clone()),
                grounded: true,
            })
            .collect();
        let result = fixtures::result("Book", "A book.");
        store
            .save_article(&SaveArticle {
                claims: &claims,
                ..fixtures::digest(id, &result)
            })
            .expect("save");
    }
    store
}

/// The median time to ingest `changed` into a fresh wiki holding `book` (cited or not),
/// and, for the cited one, how many quotes are placed and lost after the last run.
fn time_ingest(book: &Book, changed: &[Vec<String>], cite: bool) -> (Duration, usize, usize) {
    let (text, pages) = text_of(changed);
    let mut times = Vec::new();
    let mut counts = (0, 0);
    for _ in 0..RUNS {
        let dir = tempfile::tempdir().expect("dir");
        let store = wiki(dir.path(), book, cite);
        let started = Instant::now();
        store
            .ingest_paged_source(&source(&text), None, &pages)
            .expect("ingest again");
        times.push(started.elapsed());
        if cite {
            let id = store
                .find_source("/books/book.pdf")
                .expect("find")
                .expect("source")
                .id;
            let wanted: Vec<_> = book
                .quotes
                .iter()
                .map(|q| (vec![id], Some(q.clone())))
                .collect();
            let placed = store
                .citations(&wanted)
                .expect("citations")
                .iter()
                .filter(|c| !c.is_empty())
                .count();
            counts = (placed, store.lost_citations().expect("lost").len());
        }
    }
    times.sort();
    (times[RUNS / 2], counts.0, counts.1)
}

fn main() {
    let book = book();
    let (text, _) = text_of(&book.pages);
    println!(
        "re-anchoring: {PAGES} pages, {:.1} MB of text, one cited quote per page",
        text.len() as f64 / 1_048_576.0
    );

    let mut inserted = book.pages.clone();
    inserted[0][0].insert_str(0, "Preface added. ");

    let mut moved = book.pages.clone();
    let paragraph = moved[150].remove(0);
    moved[PAGES - 1].push(paragraph);

    let mut deleted = book.pages.clone();
    for (i, page) in deleted.iter_mut().enumerate().filter(|(i, _)| i % 10 == 0) {
        page[0] = page[0].replace(&book.quotes[i], "words no longer here");
    }

    for (what, changed) in [
        ("a word inserted on page 1", &inserted),
        ("a quoted paragraph moved to the end", &moved),
        ("30 quotes deleted", &deleted),
    ] {
        let (cited, placed, lost) = time_ingest(&book, changed, true);
        let (bare, _, _) = time_ingest(&book, changed, false);
        println!(
            "{what}: ingest again with {PAGES} citations {:.1} ms; without citations {:.1} ms; \
             {:.2}x; {placed} placed, {lost} lost",
            cited.as_secs_f64() * 1e3,
            bare.as_secs_f64() * 1e3,
            cited.as_secs_f64() / bare.as_secs_f64().max(1e-9),
        );
    }
}
