//! The name rules applied to a digest before it is saved
//! ([`wikimind_text::name_rule`]): the title, concepts, backlink suggestions and body links
//! a model proposes become pages only when they are names the source says.
//!
//! - **Honest titles**: a model's title never replaces a source's own title (a note's
//!   front matter `title` or H1, a text file's standalone first line, a file's name, a web
//!   page's title): the report says what the model proposed ([`NameReport::title_note`]),
//!   and a proposal that is no name the source says is listed as rejected. A title that is
//!   the source's own is always kept, whatever it looks like (a daily note `2024-01-15`).
//!   A source without a title of its own keeps the model's when it is a name it says.
//! - **Names**: concepts and backlink suggestions that are not names, or that the source
//!   does not say, are left out; a body link to one is unlinked (its text stays). Each is
//!   listed in [`NameReport::rejected`].

use serde::Serialize;
use wikimind_text::key::topic_key;
use wikimind_text::markdown::rewrite_links;
use wikimind_text::name_rule::{NameEvidence, NotAName};

use crate::contract::CompilationResult;

/// A name the rules kept from becoming a page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RejectedName {
    /// The name as the model wrote it (reduced to its link target).
    pub name: String,
    /// Why (`empty`, `no_letters`, `markdown_syntax`, `link_syntax`, `link_fragment`,
    /// `attachment`, `too_long`, `function_word`, `clause`, `not_in_source`).
    pub reason: &'static str,
}

/// What the name rules did to one digest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NameReport {
    /// Set when the model's title was replaced by the source's own:
    /// `title not in the source: used the source's title 'Cold Brew'`.
    pub title_note: Option<String>,
    /// The names left out, in the order met: title, concepts, suggestions, body links.
    pub rejected: Vec<RejectedName>,
    /// Whether the digest's title names a page. False only for a source with no title of
    /// its own whose model title is not a name it says: the digest keeps that title for
    /// display and feeds only the pages of the names it gives.
    pub title_is_page: bool,
    /// Concepts no source says: kept on the digest as chips, never a page's name.
    pub chips: Vec<String>,
}

impl NameReport {
    /// A report of rules that changed nothing yet.
    fn new() -> NameReport {
        NameReport {
            title_note: None,
            rejected: Vec::new(),
            title_is_page: true,
            chips: Vec::new(),
        }
    }
}

/// What a source offers as evidence for names: its readable text, its own title, and its
/// file name (without extension) for a file.
pub struct SourceNames<'a> {
    /// The readable text.
    pub text: &'a str,
    /// Its own title, if it has one.
    pub own_title: Option<&'a str>,
    /// The title a note gives itself in its text (front matter `title` or first H1): its
    /// author named its topic, so its digest takes that title whatever the model proposes.
    pub note_title: Option<&'a str>,
    /// Its file's name without extension, for a file.
    pub file_stem: Option<&'a str>,
}

/// Applies the name rules (see the module documentation) to `result`, a digest of `source`.
pub fn apply_name_rules(result: &mut CompilationResult, source: &SourceNames<'_>) -> NameReport {
    let evidence = NameEvidence::new(
        [Some(source.text), source.own_title, source.file_stem]
            .into_iter()
            .flatten(),
    );
    let mut report = NameReport::new();
    let reject = |report: &mut NameReport, name: &str, reason: NotAName| {
        if !report.rejected.iter().any(|r| r.name == name) {
            report.rejected.push(RejectedName {
                name: name.to_owned(),
                reason: reason.as_str(),
            });
        }
    };

    // The title. A source that names itself (a note's front matter `title` or H1, a file's
    // name, a web page's title) is compiled under that name: a model's other title, however
    // well the source says it (`Coffee` for a note on grind size), would put unrelated
    // notes on one page.
    let own = source
        .note_title
        .or(source.own_title)
        .filter(|t| !topic_key(t).is_empty());
    if let Some(own) = own {
        // A spelling of the same name stays (`grind sizes` for `Grind Size`), unless it
        // carries link syntax.
        let same = topic_key(&result.title) == topic_key(own)
            && !wikimind_text::name_rule::carries_link_syntax(&result.title);
        let proposed = if same {
            result.title.clone()
        } else {
            std::mem::replace(&mut result.title, own.to_owned())
        };
        if topic_key(&proposed) != topic_key(own) {
            report.title_note = Some(match evidence.judge(&proposed) {
                Some(reason) => {
                    reject(&mut report, &proposed, reason);
                    match reason {
                        NotAName::NotInSource => {
                            format!("title not in the source: used the source's title '{own}'")
                        }
                        other => format!(
                            "title '{}' is not a name ({other}): used the source's title '{own}'",
                            one_line(&proposed)
                        ),
                    }
                }
                None => format!(
                    "the note's own title '{own}' was kept (the model proposed '{}')",
                    one_line(&proposed)
                ),
            });
        }
    } else if let Some(reason) = evidence.judge(&result.title) {
        reject(&mut report, &result.title.clone(), reason);
        report.title_is_page = false;
        report.title_note = Some(format!(
            "title '{}' is not a name the source says ({reason}) and the source has no \
             title of its own: the digest feeds only the pages of the names it gives",
            one_line(&result.title)
        ));
    }

    names_said(result, &evidence, &mut report);
    report
}

/// The name rules for a page an answer rewrote from its sources: concepts, backlink
/// suggestions and body links must be names one of `texts` (the sources' readable texts and
/// the digests' titles) says. The page's title is its topic's and is not judged.
pub fn apply_page_name_rules<'a>(
    result: &mut CompilationResult,
    texts: impl IntoIterator<Item = &'a str>,
) -> NameReport {
    let evidence = NameEvidence::new(texts);
    let mut report = NameReport::new();
    names_said(result, &evidence, &mut report);
    report
}

/// Leaves out of `result` the concepts, suggestions and body links `evidence` does not
/// allow, recording each in `report`.
fn names_said(result: &mut CompilationResult, evidence: &NameEvidence, report: &mut NameReport) {
    let reject = |report: &mut NameReport, name: &str, reason: NotAName| {
        if !report.rejected.iter().any(|r| r.name == name) {
            report.rejected.push(RejectedName {
                name: name.to_owned(),
                reason: reason.as_str(),
            });
        }
    };
    // Concepts and backlink suggestions.
    let keep = |names: &mut Vec<String>, report: &mut NameReport| {
        names.retain(|name| match evidence.judge(name) {
            None => true,
            Some(reason) => {
                reject(report, name, reason);
                false
            }
        });
    };
    let before = result.concepts.clone();
    keep(&mut result.concepts, report);
    // A concept no source says stays on its digest as a chip; junk (`{`, `#x`) does not.
    report.chips = before
        .into_iter()
        .filter(|c| !result.concepts.contains(c))
        .filter(|c| evidence.judge(c) == Some(NotAName::NotInSource))
        .collect();
    keep(&mut result.backlink_suggestions, report);

    // Body links: one to a name no source says reads as its text.
    let judged = std::cell::RefCell::new(Vec::new());
    result.article_body = rewrite_links(&result.article_body, &|link| {
        if !link.names_page() {
            return None;
        }
        let reason = evidence.judge(&link.target)?;
        judged.borrow_mut().push((link.target.clone(), reason));
        Some(link.display())
    });
    for (name, reason) in judged.into_inner() {
        reject(report, &name, reason);
    }
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(title: &str, concepts: &[&str], body: &str) -> CompilationResult {
        serde_json::from_value(serde_json::json!({
            "title": title,
            "summary": "s",
            "key_claims": [],
            "concepts": concepts,
            "backlink_suggestions": concepts,
            "open_questions": [],
            "article_body": body,
        }))
        .unwrap()
    }

    const COLD_BREW: &str = "# Cold Brew\n\nCold brew steeps coarse grounds in cold water. \
                             It pairs with [[Water Chemistry]].";

    #[test]
    fn an_invented_title_gives_way_to_the_sources_own() {
        let mut r = result("The 100% Natural Coffee", &[], "b");
        let source = SourceNames {
            text: COLD_BREW,
            own_title: Some("Cold Brew"),
            note_title: None,
            file_stem: Some("cold-brew"),
        };
        let report = apply_name_rules(&mut r, &source);
        assert_eq!(r.title, "Cold Brew");
        assert_eq!(
            report.title_note.as_deref(),
            Some("title not in the source: used the source's title 'Cold Brew'")
        );
        assert_eq!(report.rejected[0].reason, "not_in_source");

        // A title the source says still never replaces its own.
        let mut said = result("Coarse Grounds", &[], "b");
        let report = apply_name_rules(&mut said, &source);
        assert_eq!(said.title, "Cold Brew");
        assert_eq!(
            report.title_note.as_deref(),
            Some("the note's own title 'Cold Brew' was kept (the model proposed 'Coarse Grounds')")
        );
        assert!(report.rejected.is_empty());

        let mut daily = result("2024-01-15", &[], "b");
        let note = SourceNames {
            text: "Met Ana.",
            own_title: Some("2024-01-15"),
            note_title: None,
            file_stem: Some("2024-01-15"),
        };
        assert!(apply_name_rules(&mut daily, &note).rejected.is_empty());
        assert_eq!(
            daily.title, "2024-01-15",
            "a source's own title is always a name"
        );
    }

    #[test]
    fn names_that_are_not_said_leave_concepts_suggestions_and_links() {
        let mut r = result(
            "Cold Brew",
            &[
                "Coarse grounds",
                "{",
                "1:16",
                "Espresso",
                "photo.jpg",
                "Water Chemistry",
            ],
            "Steep it. See [[Espresso]], [[Water Chemistry|water]] and [[1:16]]. `[[Espresso]]`",
        );
        let source = SourceNames {
            text: COLD_BREW,
            own_title: Some("Cold Brew"),
            note_title: None,
            file_stem: None,
        };
        let report = apply_name_rules(&mut r, &source);
        assert_eq!(r.concepts, ["Coarse grounds", "Water Chemistry"]);
        assert_eq!(
            report.chips,
            ["Espresso"],
            "said by no source: a chip, not junk"
        );
        assert_eq!(r.backlink_suggestions, r.concepts);
        assert_eq!(
            r.article_body,
            "Steep it. See Espresso, [[Water Chemistry|water]] and 1:16. `[[Espresso]]`"
        );
        let rejected: Vec<(&str, &str)> = report
            .rejected
            .iter()
            .map(|r| (r.name.as_str(), r.reason))
            .collect();
        assert_eq!(
            rejected,
            [
                ("{", "empty"),
                ("1:16", "no_letters"),
                ("Espresso", "not_in_source"),
                ("photo.jpg", "attachment"),
            ]
        );
    }

    #[test]
    fn a_page_names_only_what_one_of_its_sources_says() {
        let mut r = result(
            "Espresso",
            &["Crema", "Volcanic Ash"],
            "Pulled with [[Crema]] on top; see [[Volcanic Ash]] and [[Grind Size|the grind]].",
        );
        let report = apply_page_name_rules(
            &mut r,
            [
                "A shot has crema on top.",
                "Grind size matters.",
                "Espresso",
            ],
        );
        assert_eq!(r.concepts, ["Crema"]);
        assert_eq!(
            r.article_body,
            "Pulled with [[Crema]] on top; see Volcanic Ash and [[Grind Size|the grind]]."
        );
        assert_eq!(report.rejected.len(), 1);
        assert_eq!(report.title_note, None);
    }

    #[test]
    fn a_source_without_a_title_of_its_own_gets_a_page_only_for_a_name_it_says() {
        let pasted = "Cold brew steeps coarse grounds in cold water.";
        let source = SourceNames {
            text: pasted,
            own_title: None,
            note_title: None,
            file_stem: None,
        };
        let mut invented = result("The 100% Natural Coffee", &[], "b");
        let report = apply_name_rules(&mut invented, &source);
        assert!(!report.title_is_page);
        assert_eq!(
            invented.title, "The 100% Natural Coffee",
            "kept for display"
        );
        assert!(report.title_note.unwrap().contains("no title of its own"));

        let mut said = result("Cold Brew", &[], "b");
        assert!(apply_name_rules(&mut said, &source).title_is_page);
    }

    #[test]
    fn a_note_that_names_itself_keeps_its_name() {
        let source = SourceNames {
            text: "# Grind Size\n\nA finer grind slows the water through the coffee.",
            own_title: Some("Grind Size"),
            note_title: Some("Grind Size"),
            file_stem: Some("grind-size"),
        };
        let mut r = result("Coffee", &[], "b");
        let report = apply_name_rules(&mut r, &source);
        assert_eq!(r.title, "Grind Size", "not the word every coffee note says");
        assert_eq!(
            report.title_note.as_deref(),
            Some("the note's own title 'Grind Size' was kept (the model proposed 'Coffee')")
        );
        let mut same = result("grind sizes", &[], "b");
        assert!(apply_name_rules(&mut same, &source).title_note.is_none());
        assert_eq!(
            same.title, "grind sizes",
            "a spelling of the same name stays"
        );
    }
}
