//! What each call's quotes and names may be drawn from ([`AnswerGrounds`]): the texts the
//! call is about, as its prompt shows them. A provider that can hold decoding to them (the
//! built-in engine) writes only quotes that ground; the others ignore them, and grounding
//! after the answer checks their quotes as before.
//!
//! | call | texts | title | names |
//! |---|---|---|---|
//! | a source | the source's text ([`quotable_text`]) | the source's title | titles and concepts offered |
//! | a part of a large source | the part's text | — | — |
//! | the final call of a large source | the quotes its parts extracted | the source's title | titles and concepts offered |
//! | a page | the excerpts of the contributing sources | free (the answer's is ignored) | titles and concepts offered |
//! | a part of a page's material read in parts | the excerpts' words the part holds ([`part_grounds_within`]) | — | — |
//! | the final call of a page read in parts | the quotes its parts extracted from the excerpts | free | titles and concepts offered |
//! | an answer | the pages read, each named by its title | — | — |

use std::ops::Range;

use crate::llm::{AnswerGrounds, GroundText};
use crate::store::Source;

/// The text of a source that a source call shows the model and draws quotes from: the one
/// place that says which text that is. `source` is as the compile reads it, its text the
/// readable text ([`crate::ground::readable::readable_source`]); a source read from the store is passed
/// through that first.
pub fn quotable_text(source: &Source) -> &str {
    &source.text
}

/// A source call: quotes from the source's text, the title its own or a run of its
/// words, names from the text or the offered `titles` and `concepts`.
pub fn source_grounds(source: &Source, titles: &[String], concepts: &[String]) -> AnswerGrounds {
    AnswerGrounds {
        texts: vec![GroundText::new(quotable_text(source))],
        names: offered(titles, concepts),
        title: own_title(source),
    }
}

/// The final call of a large source: quotes from the `quotes` its parts extracted (each a
/// text of its own, so a quote never runs from one into the next).
pub fn notes_grounds(
    source: &Source,
    quotes: &[String],
    titles: &[String],
    concepts: &[String],
) -> AnswerGrounds {
    AnswerGrounds {
        texts: quotes.iter().map(GroundText::new).collect(),
        names: offered(titles, concepts),
        title: own_title(source),
    }
}

/// A part call (one chunk of a large text): quotes from the part's text.
pub fn part_grounds(part: &str) -> AnswerGrounds {
    AnswerGrounds {
        texts: vec![GroundText::new(part)],
        ..AnswerGrounds::default()
    }
}

/// A part call of a text only some of which may be quoted (a page's digests and excerpts
/// read in parts: the excerpts' own words, not the digests nor the blocks' wrapper lines):
/// quotes from the pieces of the `quotable` byte ranges of `text` that the `part` (a byte
/// range of `text`) holds, each a text of its own. A part holding none of them gets no
/// text to quote. Ranges outside `text` or off a character boundary are left out.
pub fn part_grounds_within(
    text: &str,
    part: Range<usize>,
    quotable: &[Range<usize>],
) -> AnswerGrounds {
    let texts = quotable
        .iter()
        .filter_map(|span| {
            let (start, end) = (span.start.max(part.start), span.end.min(part.end));
            let piece = text.get(start..end)?;
            (!piece.trim().is_empty()).then(|| GroundText::new(piece))
        })
        .collect();
    AnswerGrounds {
        texts,
        ..AnswerGrounds::default()
    }
}

/// A page call: quotes from the `excerpts` of the contributing sources the prompt shows;
/// the title is free (the page keeps its topic's name whatever the answer says).
pub fn page_grounds(excerpts: &[String], titles: &[String], concepts: &[String]) -> AnswerGrounds {
    AnswerGrounds {
        texts: excerpts.iter().map(GroundText::new).collect(),
        names: offered(titles, concepts),
        title: None,
    }
}

/// An answer to a question: quotes from the `pages` read, `(title, text)`, each quote from
/// the page its claim cites.
pub fn answer_grounds(pages: &[(String, String)]) -> AnswerGrounds {
    AnswerGrounds {
        texts: pages
            .iter()
            .map(|(title, text)| GroundText::named(title, text))
            .collect(),
        ..AnswerGrounds::default()
    }
}

/// A source's own title: its title as ingested (the first H1, the front matter's or the
/// page's title, else the file's stem); `None` for a source without one.
fn own_title(source: &Source) -> Option<String> {
    source
        .title
        .as_deref()
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_owned)
}

fn offered(titles: &[String], concepts: &[String]) -> Vec<String> {
    titles.iter().chain(concepts).cloned().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(grounds: &AnswerGrounds) -> Vec<&str> {
        grounds.texts.iter().map(|t| t.text.as_str()).collect()
    }

    #[test]
    fn a_part_of_a_pages_material_quotes_only_the_excerpts_it_holds() {
        let digests = "<<<DIGEST source 1: Espresso\n{\"title\":\"Espresso\"}\nDIGEST>>>";
        let one = "Espresso is brewed at nine bars.";
        let two = "Crema is the foam on top.";
        let text = format!(
            "{digests}\n\n<<<EXCERPT source 1\n{one}\nEXCERPT>>>\n<<<EXCERPT source 2\n{two}\nEXCERPT>>>"
        );
        let at = |s: &str| {
            let start = text.find(s).unwrap();
            start..start + s.len()
        };
        let spans = [at(one), at(two)];
        // The whole material: both excerpts, each its own text, no digest, no wrapper line.
        let whole = part_grounds_within(&text, 0..text.len(), &spans);
        assert_eq!(texts(&whole), [one, two]);
        // A part that ends inside the first excerpt: the start of it only.
        let cut = at("nine bars").start;
        let first = part_grounds_within(&text, 0..cut, &spans);
        assert_eq!(texts(&first), ["Espresso is brewed at "]);
        // A part of digests only: nothing to quote.
        let digest_only = part_grounds_within(&text, 0..digests.len(), &spans);
        assert!(digest_only.texts.is_empty());
        // Hostile ranges (past the end, off a character boundary) are left out.
        let odd = "é".to_string();
        assert!(part_grounds_within(&odd, 0..2, &[1..2, 5..9])
            .texts
            .is_empty());
    }
}
