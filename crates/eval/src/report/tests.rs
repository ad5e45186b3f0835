//! The report's tests: figures from known runs, the tables as printed.

use super::*;

#[test]
fn nearest_rank_percentiles() {
    let v: Vec<u64> = (1..=20).collect();
    assert_eq!(percentile(&v, 50.0), 10);
    assert_eq!(percentile(&v, 95.0), 19);
    assert_eq!(percentile(&[7], 95.0), 7);
    assert_eq!(percentile(&[], 50.0), 0);
    assert_eq!(percentile(&[1, 2, 3], 100.0), 3);
    assert_eq!(percentile(&[1, 2, 3], 0.0), 1);
}

fn answer(calls: u32, answered: bool, latency_ms: u64) -> AnswerResult {
    AnswerResult {
        covered: calls > 0,
        answered,
        error: (calls > 0 && !answered).then(|| "no valid answer".into()),
        first_answer: (calls > 0).then_some(AnswerClass::StrictValid),
        answer: String::new(),
        read: Vec::new(),
        claims: Vec::new(),
        grounded_claims: 0,
        sourced_claims: 0,
        sourced_grounded_claims: 0,
        facts: Vec::new(),
        facts_found: 0,
        calls,
        tokens_in: 100 * u64::from(calls),
        tokens_out: 10 * u64::from(calls),
        tokens_reported: calls > 0,
        latency_ms,
        warnings: Vec::new(),
        attempts: Vec::new(),
    }
}

#[test]
fn questions_not_covered_count_against_valid_answers_but_not_latency_or_tokens() {
    let answers = [
        answer(1, true, 400),
        answer(2, false, 900),
        answer(0, false, 1),
    ];
    let refs: Vec<&AnswerResult> = answers.iter().collect();
    let f = answer_figures(&refs, 0);
    assert_eq!((f.covered, f.valid_answers, f.failed), (2, 1, 1));
    assert!((f.valid_rate - 1.0 / 3.0).abs() < 1e-9);
    assert_eq!((f.latency_ms.min, f.latency_ms.max), (400, 900));
    assert_eq!(f.tokens_in.runs_reported, 2);
    assert_eq!(f.tokens_in.per_question, 150.0);
    assert_eq!(
        f.tokens_in.per_answer,
        Some(300.0),
        "all tokens, one answer"
    );
    // Nothing to divide by: no rate, rather than a made-up 0%.
    assert_eq!(
        (f.grounded_rate, f.sourced_grounded_rate, f.facts_found_rate),
        (None, None, None)
    );
    assert_eq!(share(0, 0), "-");
    assert_eq!(share(1, 3), "1/3 33%");
}
