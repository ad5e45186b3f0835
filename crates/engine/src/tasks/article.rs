//! An answer in the compilation contract — a digest or a page — judged: lenient
//! extraction, repair and validation against the contract, names reduced to the pages they
//! name, repeats dropped, every claim grounded ([`judge`]); accepted, it is an [`Accepted`]
//! article. Pure: no IO, no async.

use crate::call::step::{Judged, Judgement, Rejection};
use crate::contract::{CheckedClaim, CompilationResult, Confidence};
use crate::ground::index::{ground_claims_with, GroundingIndex};
use crate::store::NewLink;
use crate::structured::{self, Mode, Repair, Schema};
use crate::text::markdown::wiki_links;

/// An answer turned into an article, ready to store.
#[derive(Debug, Clone, PartialEq)]
pub struct Accepted {
    /// The validated result (claims as the model wrote them).
    pub result: CompilationResult,
    /// The claims after grounding.
    pub claims: Vec<CheckedClaim>,
    /// Repairs and coercions applied to the answer.
    pub repairs: Vec<Repair>,
    /// Warnings from the engine and from grounding.
    pub warnings: Vec<String>,
    /// Whether the answer was cut off (the article is written from a truncated answer).
    pub truncated: bool,
}

impl Judged for Accepted {
    fn repairs(&self) -> &[Repair] {
        &self.repairs
    }

    fn truncated(&self) -> bool {
        self.truncated
    }

    fn grounding(&self) -> (u32, u32) {
        let mut sourced = 0;
        let mut grounded = 0;
        for (written, checked) in self.result.key_claims.iter().zip(&self.claims) {
            if written.confidence == Confidence::Sourced {
                sourced += 1;
                if checked.grounded && checked.confidence == Confidence::Sourced {
                    grounded += 1;
                }
            }
        }
        (sourced, grounded)
    }
}

impl Accepted {
    /// The links the article makes: its `[[wiki links]]` with the sentence around each,
    /// then the model's backlink suggestions (with no sentence).
    pub(crate) fn links(&self) -> Vec<NewLink> {
        links_of(&self.result)
    }
}

/// The links `result` makes: its body's wiki links with the sentence around each, then its
/// backlink suggestions (with no sentence).
pub(crate) fn links_of(result: &CompilationResult) -> Vec<NewLink> {
    let mut links: Vec<NewLink> = wiki_links(&result.article_body)
        .into_iter()
        .map(|l| NewLink {
            target: l.target,
            context: l.context,
        })
        .collect();
    links.extend(result.backlink_suggestions.iter().map(|s| NewLink {
        target: s.clone(),
        context: String::new(),
    }));
    // The last door: a target that still carries link syntax (a link the body's two
    // readings split differently) names no page.
    links.retain(|l| wikimind_text::name_rule::not_a_written_name(&l.target).is_none());
    links
}

/// Judges a raw answer: lenient extraction, repair and validation against the contract,
/// then grounding of every claim against the source. `cut_off` is true when the provider
/// said the answer stopped at the length limit.
///
/// Indexes the source on every call; to judge several answers about one source, build a
/// [`GroundingIndex`] once and call [`judge_in`].
pub fn judge(raw: &str, cut_off: bool, source_text: &str, schema: &Schema) -> Judgement<Accepted> {
    judge_in(raw, cut_off, &GroundingIndex::new(source_text), schema)
}

/// [`judge`] against a source indexed once for all its answers.
pub fn judge_in(
    raw: &str,
    cut_off: bool,
    source: &GroundingIndex,
    schema: &Schema,
) -> Judgement<Accepted> {
    judge_with(raw, cut_off, &|quote| source.contains(quote), schema)
}

/// [`judge`] with the grounding check given as `grounds` (whether a quote is found in the
/// material: one source, or any of a page's sources).
pub fn judge_with(
    raw: &str,
    cut_off: bool,
    grounds: &dyn Fn(&str) -> bool,
    schema: &Schema,
) -> Judgement<Accepted> {
    match structured::parse_json(raw, schema, Mode::Lenient) {
        Ok(outcome) => {
            let truncated = outcome.truncated || cut_off;
            match serde_json::from_value::<CompilationResult>(outcome.value) {
                Ok(mut result) => {
                    reduce_names(&mut result);
                    let mut warnings = outcome.warnings;
                    let repeats = drop_repeats(&mut result);
                    if repeats > 0 {
                        warnings.push(format!(
                            "{repeats} repeated claim(s) or open question(s) dropped (the answer said them again)"
                        ));
                    }
                    if result.title.trim().is_empty() {
                        return Judgement::Reject {
                            why: Rejection::EmptyTitle,
                            problems: vec!["/title: the title is empty".into()],
                            repairs: outcome.repairs,
                            truncated,
                        };
                    }
                    let claims = ground_claims_with(&result.key_claims, grounds);
                    let downgraded = result
                        .key_claims
                        .iter()
                        .zip(&claims)
                        .filter(|(c, k)| c.confidence != k.confidence)
                        .count();
                    if downgraded > 0 {
                        warnings.push(format!(
                            "{downgraded} sourced claim(s) quoted text not found in the source; marked inferred"
                        ));
                    }
                    if truncated {
                        warnings.push("written from an answer that was cut off".into());
                    }
                    Judgement::Accept(Box::new(Accepted {
                        result,
                        claims,
                        repairs: outcome.repairs,
                        warnings,
                        truncated,
                    }))
                }
                Err(e) => Judgement::Reject {
                    why: Rejection::Contract,
                    problems: vec![format!("the answer does not fit the contract: {e}")],
                    repairs: outcome.repairs,
                    truncated,
                },
            }
        }
        Err(err) => Judgement::Reject {
            why: Rejection::of(&err.reason),
            problems: err.lines(),
            repairs: err.repairs,
            truncated: err.truncated || cut_off,
        },
    }
}

/// The title, concepts and backlink suggestions of `result` reduced to the pages they name,
/// by the one rule of names ([`wikimind_text::name_rule::reduce_link_syntax`]:
/// `[[T#h|s]]`, `[t](T.md)`, `T|shown` and `T#Heading` name `T`); concepts and suggestions
/// that name nothing (`#Heading`, `photo.jpg`) or still carry link syntax (a sentence with
/// a link in it), and repeats, dropped.
fn reduce_names(result: &mut CompilationResult) {
    // A title written as a link names the link's target; one that still carries link
    // syntax is left for the name rules to refuse.
    if let Ok(title) = wikimind_text::name_rule::reduce_link_syntax(&result.title) {
        result.title = title;
    }
    fn reduce(names: &mut Vec<String>) {
        let mut seen = std::collections::HashSet::new();
        *names = names
            .iter()
            .filter_map(|n| wikimind_text::name_rule::reduce_link_syntax(n).ok())
            .filter(|n| seen.insert(crate::text::key::page_key(n)))
            .collect();
    }
    reduce(&mut result.concepts);
    reduce(&mut result.backlink_suggestions);
}

/// Drops the claims and open questions of `result` that repeat an earlier one of the same
/// answer (compared by topic key: case, accents, plurals, spacing and punctuation aside;
/// the first is kept, with its quote). A small model loops on a phrase; a repeated claim
/// adds nothing and would count twice. Returns how many were dropped.
fn drop_repeats(result: &mut CompilationResult) -> usize {
    let key = |text: &str| crate::text::key::topic_key(text);
    let before = result.key_claims.len() + result.open_questions.len();
    let mut seen = std::collections::HashSet::new();
    result
        .key_claims
        .retain(|c| key(&c.claim).is_empty() || seen.insert(key(&c.claim)));
    let mut seen = std::collections::HashSet::new();
    result
        .open_questions
        .retain(|q| key(q).is_empty() || seen.insert(key(q)));
    before - result.key_claims.len() - result.open_questions.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::compilation_schema;

    const SOURCE: &str = "Ownership is Rust's most unique feature. Each value has an owner.";

    fn schema() -> Schema {
        Schema::new(compilation_schema()).unwrap()
    }

    fn valid() -> String {
        serde_json::json!({
            "title": "Ownership",
            "summary": "Rust's ownership.",
            "key_claims": [
                {"claim": "Values have owners", "confidence": "sourced", "quote": "Each value has an owner."},
                {"claim": "Ownership is magic", "confidence": "sourced", "quote": "Ownership is pure magic"}
            ],
            "article_body": "See [[Borrowing]]."
        })
        .to_string()
    }

    #[test]
    fn repeated_claims_and_questions_in_one_answer_are_kept_once() {
        let raw = serde_json::json!({
            "title": "Ownership",
            "summary": "Rust's ownership.",
            "key_claims": [
                {"claim": "Each value has an owner.", "confidence": "sourced", "quote": "Each value has an owner."},
                {"claim": "each value has an OWNER", "confidence": "sourced", "quote": "Each value has an owner."},
                {"claim": "  Each value has an owner!!", "confidence": "inferred"},
                {"claim": "Ownership is unique.", "confidence": "sourced", "quote": "Ownership is Rust's most unique feature."}
            ],
            "open_questions": ["Who owns it?", "who owns it", "Why?"],
            "article_body": "Body."
        })
        .to_string();
        match judge(&raw, false, SOURCE, &schema()) {
            Judgement::Accept(a) => {
                let claims: Vec<&str> = a
                    .result
                    .key_claims
                    .iter()
                    .map(|c| c.claim.as_str())
                    .collect();
                assert_eq!(claims, ["Each value has an owner.", "Ownership is unique."]);
                assert_eq!(a.claims.len(), 2, "grounding sees the distinct claims");
                assert_eq!(a.result.open_questions, ["Who owns it?", "Why?"]);
                assert!(
                    a.warnings.iter().any(|w| w.starts_with("3 repeated")),
                    "{:?}",
                    a.warnings
                );
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn judge_accepts_and_grounds() {
        match judge(&valid(), false, SOURCE, &schema()) {
            Judgement::Accept(a) => {
                assert_eq!(a.claims[0].confidence, Confidence::Sourced);
                assert_eq!(a.claims[1].confidence, Confidence::Inferred);
                assert!(!a.claims[1].grounded);
                assert!(a.warnings[0].contains("not found in the source"));
                assert!(!a.truncated);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn judge_rejects_with_reasons() {
        match judge("I can't do that", false, SOURCE, &schema()) {
            Judgement::Reject { problems, .. } => assert!(problems[0].contains("no JSON value")),
            other => panic!("{other:?}"),
        }
        match judge(
            r#"{"title": "", "summary": "s", "key_claims": [], "article_body": "b"}"#,
            false,
            SOURCE,
            &schema(),
        ) {
            Judgement::Reject { problems, .. } => {
                assert_eq!(problems, vec!["/title: the title is empty"])
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn length_finish_marks_truncated() {
        let raw = r#"{"title": "T", "summary": "S", "key_claims": [], "article_body": "Once upon"#;
        match judge(raw, true, SOURCE, &schema()) {
            Judgement::Accept(a) => assert!(a.truncated),
            other => panic!("{other:?}"),
        }
    }

    /// A name a model or a note writes, made of every markdown construct.
    fn any_name() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let piece = prop_oneof![
            Just("Espresso"),
            Just("Supported formats"),
            Just("C#"),
            Just("[[Sync]]"),
            Just("[[Sync"),
            Just("Sync]]"),
            Just("[[Folder/Note#Heading|shown]]"),
            Just("![[photo.png]]"),
            Just("[[T#^block]]"),
            Just("[[x^y]]"),
            Just("[text](Note%20name.md)"),
            Just("[text](<Other note.md>)"),
            Just("[site](https://example.org)"),
            Just("|"),
            Just("^"),
            Just("["),
            Just("]"),
            Just("You can add"),
            Just("to a vault."),
        ];
        proptest::collection::vec(piece, 1..5).prop_map(|parts| parts.join(" "))
    }

    proptest::proptest! {
        /// The model's doors — its title, concepts, backlink suggestions and body links —
        /// through the reading of an answer and the name rules: no name a digest gives
        /// carries link syntax.
        #[test]
        fn no_name_of_a_digest_carries_link_syntax(
            title in any_name(),
            concepts in proptest::collection::vec(any_name(), 0..4),
            links in proptest::collection::vec(any_name(), 0..4),
            own in proptest::option::of(any_name()),
        ) {
            use crate::tasks::names::{apply_name_rules, SourceNames};
            use wikimind_text::name_rule::carries_link_syntax;
            let body = links.iter().map(|l| format!("See [[{l}]] and {l}.")).collect::<Vec<_>>().join("\n");
            let raw = serde_json::json!({
                "title": title, "summary": "s", "key_claims": [],
                "concepts": concepts, "backlink_suggestions": links,
                "article_body": body,
            }).to_string();
            let Judgement::Accept(accepted) = judge(&raw, false, SOURCE, &schema()) else {
                return Ok(());
            };
            let mut result = accepted.result;
            let text = format!("{SOURCE} {title} {}", concepts.join(" "));
            let own = own.as_deref().and_then(wikimind_text::markdown::clean_title);
            let report = apply_name_rules(&mut result, &SourceNames {
                text: &text,
                own_title: own.as_deref(),
                note_title: None,
                file_stem: None,
            });
            if report.title_is_page {
                proptest::prop_assert!(!carries_link_syntax(&result.title), "{:?}", result.title);
            }
            for name in result.concepts.iter().chain(&result.backlink_suggestions) {
                proptest::prop_assert!(!carries_link_syntax(name), "{:?}", name);
            }
            for link in links_of(&result) {
                proptest::prop_assert!(!carries_link_syntax(&link.target), "{:?}", link.target);
            }
        }
    }
}
