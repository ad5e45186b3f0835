//! The `expected` checks of a case, run against the article a compile produced. Pure.

use serde::Serialize;

use wikimind::contract::Confidence;
use wikimind::ArticleDetail;

use super::dataset::Expected;

/// What a compile produced, as the checks see it.
#[derive(Debug, Clone, Copy)]
pub struct ArticleFacts<'a> {
    /// The stored article.
    pub article: &'a ArticleDetail,
    /// Claims the model labelled `sourced`.
    pub sourced_claims: u32,
    /// Of those, claims whose quote was found in the source.
    pub grounded_claims: u32,
}

/// The outcome of one check.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CheckResult {
    /// The check's name (the key in `expected`).
    pub check: String,
    /// Whether it passed.
    pub passed: bool,
    /// What was found, for a person.
    pub detail: String,
}

/// Runs every check set in `expected`; with no article every check fails.
pub fn run_checks(expected: &Expected, facts: Option<ArticleFacts<'_>>) -> Vec<CheckResult> {
    let mut out = Vec::new();
    let mut push = |check: &str, outcome: Option<(bool, String)>| {
        let (passed, detail) = outcome.unwrap_or((false, "no article".into()));
        out.push(CheckResult {
            check: check.into(),
            passed,
            detail,
        });
    };
    let a = facts.map(|f| f.article);
    if let Some(want) = &expected.title_contains {
        push(
            "title_contains",
            a.map(|a| {
                (
                    a.title.to_lowercase().contains(&want.to_lowercase()),
                    format!("title {:?}, expected to contain {want:?}", a.title),
                )
            }),
        );
    }
    if let Some(min) = expected.min_claims {
        push(
            "min_claims",
            a.map(|a| {
                (
                    a.claims.len() >= min as usize,
                    format!("{} claim(s), at least {min} expected", a.claims.len()),
                )
            }),
        );
    }
    if let Some(max) = expected.max_claims {
        push(
            "max_claims",
            a.map(|a| {
                (
                    a.claims.len() <= max as usize,
                    format!("{} claim(s), at most {max} expected", a.claims.len()),
                )
            }),
        );
    }
    if let Some(concepts) = &expected.must_mention_concepts {
        push(
            "must_mention_concepts",
            a.map(|a| {
                let haystack = format!(
                    "{}\n{}\n{}\n{}",
                    a.concepts.join("\n"),
                    a.title,
                    a.summary,
                    a.body
                )
                .to_lowercase();
                let missing: Vec<&str> = concepts
                    .iter()
                    .filter(|c| !haystack.contains(&c.to_lowercase()))
                    .map(String::as_str)
                    .collect();
                if missing.is_empty() {
                    (true, format!("all of {concepts:?} mentioned"))
                } else {
                    (false, format!("not mentioned: {missing:?}"))
                }
            }),
        );
    }
    if let Some(max) = expected.max_opinion_share {
        push(
            "max_opinion_share",
            a.map(|a| {
                let opinions = a
                    .claims
                    .iter()
                    .filter(|c| c.confidence == Confidence::Opinion)
                    .count();
                let share = if a.claims.is_empty() {
                    0.0
                } else {
                    opinions as f64 / a.claims.len() as f64
                };
                (
                    share <= max + 1e-9,
                    format!(
                        "{opinions} of {} claim(s) are opinions ({:.0}%), at most {:.0}% expected",
                        a.claims.len(),
                        share * 100.0,
                        max * 100.0
                    ),
                )
            }),
        );
    }
    if let Some(min) = expected.min_grounded_rate {
        push(
            "min_grounded_rate",
            facts.map(|f| {
                if f.sourced_claims == 0 {
                    return (false, "no claim labelled sourced".into());
                }
                let rate = f.grounded_claims as f64 / f.sourced_claims as f64;
                (
                    rate + 1e-9 >= min,
                    format!(
                        "{} of {} sourced quote(s) found ({:.0}%), at least {:.0}% expected",
                        f.grounded_claims,
                        f.sourced_claims,
                        rate * 100.0,
                        min * 100.0
                    ),
                )
            }),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use wikimind::contract::CheckedClaim;
    use wikimind::store::ArticleId;

    fn article() -> ArticleDetail {
        let claim = |confidence| CheckedClaim {
            claim: "c".into(),
            confidence,
            quote: None,
            grounded: false,
        };
        ArticleDetail {
            id: ArticleId(1),
            title: "Espresso Basics".into(),
            summary: "About pressure.".into(),
            body: "Nine bars of pressure.".into(),
            truncated: false,
            created_at: String::new(),
            updated_at: String::new(),
            claims: vec![
                claim(Confidence::Sourced),
                claim(Confidence::Opinion),
                claim(Confidence::Inferred),
            ],
            concepts: vec!["Crema".into()],
            open_questions: vec![],
            links: vec![],
            backlinks: vec![],
            sources: vec![],
        }
    }

    #[test]
    fn checks_pass_and_fail_as_a_reader_would_expect() {
        let a = article();
        let facts = ArticleFacts {
            article: &a,
            sourced_claims: 2,
            grounded_claims: 1,
        };
        let expected = Expected {
            title_contains: Some("espresso".into()),
            min_claims: Some(4),
            max_claims: Some(3),
            must_mention_concepts: Some(vec!["crema".into(), "PRESSURE".into(), "grind".into()]),
            max_opinion_share: Some(0.34),
            min_grounded_rate: Some(0.5),
        };
        let got: Vec<(String, bool)> = run_checks(&expected, Some(facts))
            .into_iter()
            .map(|c| (c.check, c.passed))
            .collect();
        let want = [
            ("title_contains", true),
            ("min_claims", false),
            ("max_claims", true),
            ("must_mention_concepts", false),
            ("max_opinion_share", true),
            ("min_grounded_rate", true),
        ];
        assert_eq!(
            got,
            want.iter()
                .map(|(n, p)| (n.to_string(), *p))
                .collect::<Vec<_>>()
        );
        let none = run_checks(&expected, None);
        assert_eq!(none.len(), 6);
        assert!(none.iter().all(|c| !c.passed && c.detail == "no article"));
        assert!(run_checks(&Expected::default(), Some(facts)).is_empty());
    }
}
