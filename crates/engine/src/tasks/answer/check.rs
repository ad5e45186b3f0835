//! Judging an answer to a question, pure: the answer is extracted, repaired and validated
//! against [`QuestionAnswer`]'s schema, then every `sourced` claim's quote is looked for in
//! the page the claim cites (or in one of that page's sources). A quote found nowhere
//! makes the claim `inferred`, as compile does with a digest's claims.

use serde::Serialize;

use crate::call::step::{Judged, Judgement, Rejection};
use crate::contract::{Claim, Confidence, QuestionAnswer};
use crate::ground::index::ground_claims_with;
use crate::store::{PageId, SourceId};
use crate::structured::{self, Mode, Repair, Schema};

/// Where a cited page's text was found to hold a quote.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Grounding {
    /// The page the claim cites, when there is one by that name.
    pub page_id: Option<PageId>,
    /// The page's title as the wiki writes it (the cited name when no page has it).
    pub title: Option<String>,
    /// Whether the page's own text, or one of its sources, holds the quote.
    pub found: bool,
    /// The page's sources whose text holds the quote.
    pub source_ids: Vec<SourceId>,
}

/// Looks a quote up in a cited page: `(cited page name, quote) -> Grounding`.
pub type GroundsFn<'a> = dyn Fn(&str, &str) -> Grounding + Sync + 'a;

/// A claim of an answer after its citation was checked.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CitedClaim {
    /// The claim in one sentence.
    pub claim: String,
    /// Its confidence after the check: a `sourced` claim whose quote was not found in the
    /// page it cites reads `inferred`.
    pub confidence: Confidence,
    /// Its confidence as the model labelled it, before the check.
    #[serde(skip)]
    pub labelled: Confidence,
    /// The quote as the model gave it.
    pub quote: Option<String>,
    /// The page it cites, by title (the wiki's spelling when the page exists).
    pub page: String,
    /// Whether the quote was found in the cited page or one of its sources.
    pub grounded: bool,
    /// The cited page, when one has that name.
    #[serde(skip)]
    pub page_id: Option<PageId>,
    /// The cited page's sources whose text holds the quote.
    #[serde(skip)]
    pub source_ids: Vec<SourceId>,
}

/// An answer that is valid, with its citations checked.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckedAnswer {
    /// The answer as the model wrote it.
    pub answer: QuestionAnswer,
    /// Its claims after the check.
    pub claims: Vec<CitedClaim>,
    /// Repairs and coercions applied to it.
    pub repairs: Vec<Repair>,
    /// Notes for people (claims marked inferred, an answer that was cut off).
    pub warnings: Vec<String>,
    /// Whether the answer was cut off.
    pub truncated: bool,
}

impl Judged for CheckedAnswer {
    fn repairs(&self) -> &[Repair] {
        &self.repairs
    }

    fn truncated(&self) -> bool {
        self.truncated
    }

    fn grounding(&self) -> (u32, u32) {
        let sourced = self
            .answer
            .claims
            .iter()
            .filter(|c| c.confidence == Confidence::Sourced)
            .count();
        let grounded = self
            .claims
            .iter()
            .filter(|c| c.grounded && c.confidence == Confidence::Sourced)
            .count();
        (sourced as u32, grounded as u32)
    }
}

/// The page name a claim cites, as a person would read it, by the markdown reader's link
/// rule: `[[Espresso|the drink]]`, `[[Espresso#History]]` and `[[Espresso]]` all cite
/// `Espresso`. A name that names no page is returned trimmed (and will not resolve).
pub fn cited_name(page: &str) -> String {
    wikimind_text::markdown::reduce_name(page).unwrap_or_else(|| page.trim().to_owned())
}

/// Judges a raw answer to a question: valid against `schema` and [`QuestionAnswer`], a
/// non-empty answer, and each claim's citation checked with `grounds`. `cut_off` is true
/// when the provider said the answer stopped at the length limit.
pub fn judge_answer(
    raw: &str,
    cut_off: bool,
    schema: &Schema,
    grounds: &GroundsFn<'_>,
) -> Judgement<CheckedAnswer> {
    let outcome = match structured::parse_json(raw, schema, Mode::Lenient) {
        Ok(outcome) => outcome,
        Err(err) => {
            return Judgement::Reject {
                why: Rejection::of(&err.reason),
                problems: err.lines(),
                repairs: err.repairs,
                truncated: err.truncated || cut_off,
            }
        }
    };
    let truncated = outcome.truncated || cut_off;
    let answer: QuestionAnswer = match serde_json::from_value(outcome.value) {
        Ok(answer) => answer,
        Err(e) => {
            return Judgement::Reject {
                why: Rejection::Contract,
                problems: vec![format!("the answer does not fit the contract: {e}")],
                repairs: outcome.repairs,
                truncated,
            }
        }
    };
    if answer.answer.trim().is_empty() {
        return Judgement::Reject {
            why: Rejection::Contract,
            problems: vec!["/answer: the answer is empty".into()],
            repairs: outcome.repairs,
            truncated,
        };
    }
    let mut warnings = outcome.warnings;
    let claims: Vec<CitedClaim> = answer
        .claims
        .iter()
        .map(|c| check_claim(c, grounds))
        .collect();
    let downgraded = answer
        .claims
        .iter()
        .zip(&claims)
        .filter(|(written, checked)| written.confidence != checked.confidence)
        .count();
    if downgraded > 0 {
        warnings.push(format!(
            "{downgraded} sourced claim(s) quoted text not found in the page they cite; marked inferred"
        ));
    }
    if truncated {
        warnings.push("answered from an answer that was cut off".into());
    }
    Judgement::Accept(Box::new(CheckedAnswer {
        answer,
        claims,
        repairs: outcome.repairs,
        warnings,
        truncated,
    }))
}

/// Checks one claim's citation: the same rule as a digest's claims (a `sourced` claim
/// needs its quote found, else it reads `inferred`), with the cited page's text and its
/// sources as the material.
fn check_claim(written: &crate::contract::AnswerClaim, grounds: &GroundsFn<'_>) -> CitedClaim {
    let name = &*cited_name(&written.page);
    let looked_up = std::cell::RefCell::new(Grounding::default());
    let claim = Claim {
        claim: written.claim.clone(),
        confidence: written.confidence,
        quote: written.quote.clone(),
    };
    let checked = ground_claims_with(std::slice::from_ref(&claim), &|quote| {
        if name.is_empty() {
            return false;
        }
        let found = grounds(name, quote);
        let holds = found.found;
        *looked_up.borrow_mut() = found;
        holds
    });
    let mut grounding = looked_up.into_inner();
    // `ground_claims_with` asks only when there is a quote: a claim without one keeps no
    // page lookup, so look the page up for its id and spelling.
    if grounding.page_id.is_none() && !name.is_empty() && written.quote.is_none() {
        grounding = grounds(name, "");
        grounding.found = false;
    }
    let checked = checked
        .into_iter()
        .next()
        .unwrap_or(crate::contract::CheckedClaim {
            claim: claim.claim.clone(),
            confidence: Confidence::Inferred,
            quote: claim.quote.clone(),
            grounded: false,
        });
    CitedClaim {
        claim: checked.claim,
        confidence: checked.confidence,
        labelled: written.confidence,
        quote: checked.quote,
        page: grounding.title.clone().unwrap_or_else(|| name.to_owned()),
        grounded: checked.grounded,
        page_id: grounding.page_id,
        source_ids: if checked.grounded {
            grounding.source_ids
        } else {
            Vec::new()
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ESPRESSO: &str = "Espresso is brewed at nine bars of pressure.";

    /// A wiki of one page, `Espresso`, whose text is [`ESPRESSO`].
    fn grounds(name: &str, quote: &str) -> Grounding {
        if crate::store::page_key(name) != "espresso" {
            return Grounding::default();
        }
        Grounding {
            page_id: Some(PageId(1)),
            title: Some("Espresso".into()),
            found: !quote.is_empty() && ESPRESSO.contains(quote),
            source_ids: vec![SourceId(3)],
        }
    }

    fn answer(claims: serde_json::Value) -> String {
        serde_json::json!({"answer": "See [[Espresso]].", "claims": claims}).to_string()
    }

    fn judged(raw: &str) -> Judgement<CheckedAnswer> {
        judge_answer(raw, false, crate::contract::answer_contract(), &grounds)
    }

    #[test]
    fn a_quote_found_in_the_cited_page_grounds_the_claim() {
        let raw = answer(serde_json::json!([
            {"claim": "Nine bars", "confidence": "sourced", "quote": "nine bars of pressure", "page": "[[espresso|the drink]]"},
            {"claim": "Ten bars", "confidence": "sourced", "quote": "ten bars of pressure", "page": "Espresso"},
            {"claim": "Nine bars elsewhere", "confidence": "sourced", "quote": "nine bars of pressure", "page": "Tea"},
            {"claim": "Tasty", "confidence": "opinion", "page": "Espresso"}
        ]));
        let Judgement::Accept(a) = judged(&raw) else {
            panic!("a valid answer is accepted");
        };
        let shown: Vec<(&str, Confidence, bool, &str)> = a
            .claims
            .iter()
            .map(|c| (c.claim.as_str(), c.confidence, c.grounded, c.page.as_str()))
            .collect();
        assert_eq!(
            shown,
            [
                ("Nine bars", Confidence::Sourced, true, "Espresso"),
                ("Ten bars", Confidence::Inferred, false, "Espresso"),
                ("Nine bars elsewhere", Confidence::Inferred, false, "Tea"),
                ("Tasty", Confidence::Opinion, false, "Espresso"),
            ]
        );
        assert_eq!(a.claims[0].source_ids, [SourceId(3)]);
        assert_eq!(
            a.claims[3].page_id,
            Some(PageId(1)),
            "found without a quote"
        );
        assert_eq!(a.grounding(), (3, 1));
        assert!(a.warnings.iter().any(|w| w.contains("2 sourced claim(s)")));
    }

    #[test]
    fn an_empty_or_shapeless_answer_is_refused_with_the_reason() {
        match judged(r#"{"answer": "  ", "claims": []}"#) {
            Judgement::Reject { problems, .. } => assert!(problems[0].contains("empty")),
            Judgement::Accept(_) => panic!("an empty answer is refused"),
        }
        assert!(matches!(
            judged("I think espresso is nice."),
            Judgement::Reject {
                why: Rejection::NoJson,
                ..
            }
        ));
    }
}
