//! The grammar builder, checked byte by byte with llguidance over a one-byte-per-token
//! vocabulary: what it accepts is what the engine can write.

use super::*;
use crate::schema_bounds::bound_schema;
use crate::GroundText;
use llguidance::api::TopLevelGrammar;
use llguidance::{Matcher, ParserFactory};
use serde_json::json;

fn factory() -> &'static ParserFactory {
    static F: std::sync::OnceLock<ParserFactory> = std::sync::OnceLock::new();
    F.get_or_init(|| {
        let env = toktrie::ApproximateTokEnv::single_byte_env();
        ParserFactory::new_simple(&env).expect("a parser factory over single bytes")
    })
}

fn matcher(lark: &str) -> Matcher {
    let parser = factory()
        .create_parser(TopLevelGrammar::from_lark(lark.to_string()))
        .unwrap_or_else(|e| panic!("the grammar does not compile: {e}\n{lark}"));
    let m = Matcher::new(Ok(parser));
    assert!(m.get_error().is_none(), "{:?}", m.get_error());
    m
}

/// Whether the grammar accepts `answer` whole.
fn accepts(m: &Matcher, answer: &str) -> bool {
    let mut m = m.deep_clone();
    let tokens: Vec<u32> = answer.bytes().map(u32::from).collect();
    match m.validate_tokens(&tokens) {
        Ok(n) if n == tokens.len() => {
            m.consume_tokens(&tokens).is_ok() && m.is_accepting().unwrap_or(false)
        }
        _ => false,
    }
}

fn contract() -> Value {
    serde_json::from_str(include_str!(
        "../../../../../schemas/compilation_result.schema.json"
    ))
    .unwrap()
}

fn answer_contract() -> Value {
    serde_json::from_str(include_str!(
        "../../../../../schemas/question_answer.schema.json"
    ))
    .unwrap()
}

fn source(text: &str, title: Option<&str>) -> AnswerGrounds {
    AnswerGrounds {
        texts: vec![GroundText::new(text)],
        names: vec!["Brew Ratio".into(), "Grind Size".into()],
        title: title.map(str::to_string),
    }
}

/// A compile answer with this title, one claim and these concepts.
fn answer(title: &str, confidence: &str, quote: &str, concepts: &[&str]) -> String {
    let concepts: Vec<String> = concepts.iter().map(|c| format!("\"{c}\"")).collect();
    format!(
        "{{\"title\": \"{title}\", \"summary\": \"About it.\", \"key_claims\": [{{\"claim\": \"A claim.\", \"confidence\": \"{confidence}\", \"quote\": {quote}}}], \"concepts\": [{}], \"backlink_suggestions\": [], \"open_questions\": [], \"article_body\": \"Body.\"}}",
        concepts.join(", ")
    )
}

fn grammar(text: &str, title: Option<&str>) -> Matcher {
    let lark = grounded_lark(
        &bound_schema(&contract(), 4096),
        &source(text, title),
        false,
        Shape::Free,
    )
    .expect("the contract is a schema the writer knows");
    matcher(&lark)
}

#[test]
fn a_sourced_quote_is_a_run_of_words_of_the_source() {
    let text = "Espresso is brewed at nine bars. Crema is an emulsion of oils.";
    let m = grammar(text, Some("Espresso"));
    let ok = |q: &str| answer("Espresso", "sourced", q, &[]);
    assert!(accepts(&m, &ok("\"brewed at nine bars\"")));
    assert!(accepts(&m, &ok("\"Crema is an emulsion of oils.\"")));
    assert!(accepts(&m, &ok("\"bars. Crema is\"")));
    // Not in the source, not whole words, one word, nothing, or null for a sourced claim.
    for bad in [
        "\"brewed at ten bars\"",
        "\"rewed at nine\"",
        "\"Espresso\"",
        "\"\"",
        "null",
        "\"nine bars. Cre\"",
    ] {
        assert!(!accepts(&m, &ok(bad)), "{bad}");
    }
    // Other confidences may have no quote, or a quote of the source.
    assert!(accepts(&m, &answer("Espresso", "inferred", "null", &[])));
    assert!(accepts(
        &m,
        &answer("Espresso", "opinion", "\"Crema is\"", &[])
    ));
    assert!(!accepts(
        &m,
        &answer("Espresso", "inferred", "\"made up words\"", &[])
    ));
}

#[test]
fn quotes_keep_quotes_backslashes_newlines_and_control_characters_escaped() {
    let text =
        "He said \"nine bars\" twice.\nA path C:\\beans\\fresh here.\tTab\u{1}bell \u{7}ring now";
    let m = grammar(text, None);
    let ok = |q: &str| answer("Anything", "sourced", q, &[]);
    assert!(accepts(&m, &ok(r#""said \"nine bars\" twice""#)));
    assert!(accepts(&m, &ok(r#""twice.\nA path""#)));
    assert!(accepts(&m, &ok(r#""C:\\beans\\fresh here""#)));
    assert!(accepts(&m, &ok(r#""here.\tTab""#)));
    assert!(accepts(&m, &ok(r#""bell \u0007ring now""#)));
    // The raw characters are not JSON, and an escape is never cut.
    assert!(!accepts(&m, &ok("\"twice.\nA path\"")));
    assert!(!accepts(&m, &ok(r#""said \"nine bars\\" twice""#)));
    assert!(!accepts(&m, &ok("\"Tab\u{1}bell\"")));
    // Every accepted quote reads back as a piece of the text.
    let body: Value = serde_json::from_str(r#""C:\\beans\\fresh here""#).unwrap();
    assert!(text.contains(body.as_str().unwrap()));
}

#[test]
fn multibyte_letters_and_whitespace() {
    let text = "Le café\u{a0}filtre est doux. 咖啡\u{3000}很好 喝 ok";
    let m = grammar(text, None);
    let ok = |q: &str| answer("Anything", "sourced", q, &[]);
    assert!(accepts(&m, &ok("\"café\u{a0}filtre est\"")));
    assert!(accepts(&m, &ok("\"咖啡\u{3000}很好\"")));
    // A run whose only "words" are multibyte separators is not two words.
    assert!(!accepts(&m, &ok("\"\u{a0}\u{3000}\"")));
    // A cut inside a word is not a run of words.
    assert!(!accepts(&m, &ok("\"afé\u{a0}filtre\"")));
    // The non-breaking space is the source's: a plain space is not.
    assert!(!accepts(&m, &ok("\"café filtre est\"")));
}

#[test]
fn a_quote_never_spans_an_ellipsis_or_two_texts() {
    let grounds = AnswerGrounds {
        texts: vec![
            GroundText::new("wait... then pour slowly"),
            GroundText::new("grind finer … for espresso shots"),
        ],
        ..Default::default()
    };
    let lark = grounded_lark(
        &bound_schema(&contract(), 1024),
        &grounds,
        false,
        Shape::Free,
    )
    .unwrap();
    let m = matcher(&lark);
    let ok = |q: &str| answer("Free title", "sourced", q, &[]);
    assert!(accepts(&m, &ok("\"then pour slowly\"")));
    assert!(accepts(&m, &ok("\"for espresso shots\"")));
    assert!(!accepts(&m, &ok("\"wait... then pour\"")));
    assert!(!accepts(&m, &ok("\"pour slowly grind finer\"")));
    assert!(!accepts(&m, &ok("\"grind finer … for\"")));
}

#[test]
fn titles_and_names_come_from_the_source_or_the_prompt() {
    let text = "Burr grinders crush beans between two burrs. Blade grinders chop them.";
    let m = grammar(text, Some("Burr Grinders"));
    assert!(accepts(
        &m,
        &answer("Burr Grinders", "inferred", "null", &[])
    ));
    assert!(accepts(
        &m,
        &answer("Blade grinders", "inferred", "null", &[])
    ));
    assert!(!accepts(
        &m,
        &answer("The 100% Natural Coffee", "inferred", "null", &[])
    ));
    let concepts = ["two burrs", "Grind Size", "Brew Ratio", "beans"];
    assert!(accepts(
        &m,
        &answer("Burr Grinders", "inferred", "null", &concepts)
    ));
    assert!(!accepts(
        &m,
        &answer("Burr Grinders", "inferred", "null", &["Coffee"])
    ));
    // A source without a title gets a free one.
    let free = grammar(text, None);
    assert!(accepts(
        &free,
        &answer("The 100% Natural Coffee", "inferred", "null", &[])
    ));
}

#[test]
fn an_empty_source_or_one_without_two_words_in_a_row_has_no_sourced_claims() {
    for text in ["", "word", "...", "a... b"] {
        let m = grammar(text, None);
        assert!(
            accepts(&m, &answer("T", "inferred", "null", &[])),
            "{text:?}"
        );
        assert!(
            !accepts(&m, &answer("T", "sourced", "null", &[])),
            "{text:?}"
        );
        assert!(
            !accepts(&m, &answer("T", "sourced", "\"word\"", &[])),
            "{text:?}"
        );
    }
}

#[test]
fn a_text_without_sentence_breaks_is_one_long_run() {
    let words: Vec<String> = (0..3_000).map(|i| format!("w{i}")).collect();
    let text = words.join(" ");
    let m = grammar(&text, None);
    let ok = |q: &str| answer("T", "sourced", q, &[]);
    assert!(accepts(&m, &ok("\"w1500 w1501 w1502 w1503\"")));
    assert!(!accepts(&m, &ok("\"w1500 w1502\"")));
    // Bounded like the schema's quote: a run of 300 words is too long.
    let long = words[..300].join(" ");
    assert!(!accepts(&m, &ok(&format!("\"{long}\""))));
}

#[test]
fn a_quote_in_an_answer_comes_from_the_page_it_cites() {
    let grounds = AnswerGrounds {
        texts: vec![
            GroundText::named("Espresso", "Espresso is brewed at nine bars."),
            GroundText::named("Cold Brew", "Cold brew steeps for a full day."),
        ],
        ..Default::default()
    };
    let lark = grounded_lark(
        &bound_schema(&answer_contract(), 512),
        &grounds,
        false,
        Shape::Free,
    )
    .unwrap();
    let m = matcher(&lark);
    let said = |quote: &str, page: &str| {
        format!("{{\"answer\": \"Yes.\", \"claims\": [{{\"claim\": \"C.\", \"confidence\": \"sourced\", \"quote\": {quote}, \"page\": \"{page}\"}}], \"follow_up_questions\": []}}")
    };
    assert!(accepts(&m, &said("\"brewed at nine bars\"", "Espresso")));
    assert!(accepts(&m, &said("\"steeps for a full day\"", "Cold Brew")));
    assert!(!accepts(&m, &said("\"brewed at nine bars\"", "Cold Brew")));
    assert!(!accepts(&m, &said("\"brewed at nine bars\"", "Tea")));
}

#[test]
fn jsonl_lines_hold_the_same_rules() {
    let notes = json!({
        "oneOf": [
            {"type": "object", "properties": {
                "type": {"const": "claim"}, "text": {"type": "string"},
                "confidence": {"enum": ["sourced", "inferred", "opinion"], "default": "inferred"},
                "quote": {"type": ["string", "null"], "default": null}},
             "required": ["type", "text"]},
            {"type": "object", "properties": {
                "type": {"const": "question"}, "text": {"type": "string"}},
             "required": ["type", "text"]}
        ]
    });
    let grounds = source("Tides follow the Moon. Spring tides are higher.", None);
    let lark = grounded_lark(&bound_schema(&notes, 384), &grounds, true, Shape::Free).unwrap();
    let m = matcher(&lark);
    let claim = |q: &str| {
        format!("{{\"type\": \"claim\", \"text\": \"T.\", \"confidence\": \"sourced\", \"quote\": {q}}}\n")
    };
    let question = "{\"type\": \"question\", \"text\": \"Why?\"}\n";
    assert!(accepts(
        &m,
        &format!("{}{question}", claim("\"Spring tides are higher\""))
    ));
    assert!(!accepts(&m, &claim("\"tides are lower\"")));
}

/// A schema the writer does not know keeps the plain schema path.
#[test]
fn unknown_keywords_fall_back() {
    let schema =
        json!({"type": "object", "properties": {"n": {"type": "string", "pattern": "^a"}}});
    assert!(grounded_lark(&schema, &source("a b", None), false, Shape::Free).is_none());
}

/// A 1 MB source: the grammar draws from a bounded share of it, so its size is bounded
/// whatever the source's, and it still compiles.
#[test]
fn a_one_megabyte_source_gives_a_bounded_grammar() {
    let sentence = "The grinder's burrs \"crush\" beans; café\u{a0}crème is 93 °C.\n";
    let text = sentence.repeat(1_000_000 / sentence.len() + 1);
    assert!(text.len() >= 1_000_000);
    let grounds = AnswerGrounds {
        texts: vec![GroundText::new(text.clone())],
        names: (0..1_000).map(|i| format!("Page {i}")).collect(),
        title: Some("Grinders".into()),
    };
    let lark = grounded_lark(
        &bound_schema(&contract(), 2048),
        &grounds,
        false,
        Shape::Free,
    )
    .unwrap();
    // The text's chunks, escaped, are at most a few times the bytes drawn from.
    assert!(
        lark.len() < 8 * MAX_TEXT_BYTES + 64 * 1024,
        "{} bytes of grammar",
        lark.len()
    );
    let m = matcher(&lark);
    assert!(accepts(
        &m,
        &answer(
            "Grinders",
            "sourced",
            r#""burrs \"crush\" beans""#,
            &["Page 7"]
        )
    ));
    // Names beyond the first MAX_NAMES are not offered.
    assert!(!accepts(
        &m,
        &answer("Grinders", "inferred", "null", &["Page 999"])
    ));
}

/// The engine's default: a claim is a sentence that says something, its quote a passage.
fn sentences(text: &str) -> Matcher {
    let lark = grounded_lark(
        &bound_schema(&contract(), 4096),
        &source(text, Some("Espresso")),
        false,
        Shape::Sentences,
    )
    .expect("the contract is a schema the writer knows");
    matcher(&lark)
}

/// A compile answer with one claim saying `claim` with `quote`.
fn claimed(claim: &str, confidence: &str, quote: &str) -> String {
    format!(
        "{{\"title\": \"Espresso\", \"summary\": \"About it.\", \"key_claims\": [{{\"claim\": \"{claim}\", \"confidence\": \"{confidence}\", \"quote\": {quote}}}], \"concepts\": [], \"backlink_suggestions\": [], \"open_questions\": [], \"article_body\": \"Body.\"}}"
    )
}

#[test]
fn with_sentence_claims_a_claim_is_a_sentence_and_its_quote_a_passage() {
    let text = "Espresso is brewed at nine bars. Coffea arabica grows in the highlands.";
    let m = sentences(text);
    // A sentence of four words or more, ending in a stop, with a quote of three words.
    assert!(accepts(
        &m,
        &claimed(
            "Espresso is brewed under pressure.",
            "sourced",
            "\"brewed at nine bars\""
        )
    ));
    assert!(accepts(
        &m,
        &claimed("Does arabica grow high up?", "inferred", "null")
    ));
    assert!(accepts(
        &m,
        &claimed(
            "Arabica, a coffee plant, grows in the highlands!",
            "opinion",
            "\"grows in the\""
        )
    ));
    // What the thin wiki held: a bare name as its own quote, a fragment as a quote.
    for (claim, quote) in [
        ("Coffea arabica", "\"Coffea arabica grows\""),
        ("Coffea arabica.", "\"Coffea arabica grows\""),
        ("Espresso is brewed under pressure.", "\"nine bars\""),
        ("Espresso is brewed under pressure.", "\"Coffea arabica\""),
        ("A claim.", "\"brewed at nine bars\""),
        (" Espresso is brewed here.", "\"brewed at nine bars\""),
    ] {
        assert!(
            !accepts(&m, &claimed(claim, "sourced", quote)),
            "{claim} / {quote}"
        );
    }
    // The claim's words are its own, any script.
    assert!(accepts(
        &m,
        &claimed("Le café est très bon ici.", "inferred", "null")
    ));
    assert!(accepts(
        &m,
        &claimed("咖啡 很 好 喝。 Yes it is.", "inferred", "null")
    ));
    // Scripts written without spaces count a word a character; a stop of their own ends them.
    assert!(accepts(&m, &claimed("咖啡很好喝。", "inferred", "null")));
    assert!(accepts(&m, &claimed("กาแฟอร่อย.", "inferred", "null")));
    assert!(!accepts(&m, &claimed("咖啡好", "inferred", "null")));
    // Four words are a sentence even where a loop was cut before its stop.
    assert!(accepts(
        &m,
        &claimed("Brewed at nine bars", "inferred", "null")
    ));
    // A long word is one word, however many letters: three words are not a sentence.
    assert!(!accepts(
        &m,
        &claimed("Espresso tastes wonderful.", "inferred", "null")
    ));
}

#[test]
fn with_sentence_claims_a_text_of_two_word_runs_still_has_sourced_claims() {
    // No three words stand in a row: a quote of two is the passage there is.
    let m = sentences("Nine bars... Thick crema... Short shots");
    assert!(accepts(
        &m,
        &claimed("Espresso has a thick crema.", "sourced", "\"Thick crema\"")
    ));
    assert!(!accepts(
        &m,
        &claimed("Espresso has a thick crema.", "sourced", "\"crema\"")
    ));
}

#[test]
fn with_sentence_claims_an_answer_claim_and_a_part_line_are_sentences_too() {
    let grounds = AnswerGrounds {
        texts: vec![GroundText::named(
            "Espresso",
            "Espresso is brewed at nine bars.",
        )],
        ..Default::default()
    };
    let lark = grounded_lark(
        &bound_schema(&answer_contract(), 2048),
        &grounds,
        false,
        Shape::Sentences,
    )
    .unwrap();
    let m = matcher(&lark);
    let said = |claim: &str| {
        format!("{{\"answer\": \"Yes.\", \"claims\": [{{\"claim\": \"{claim}\", \"confidence\": \"sourced\", \"quote\": \"brewed at nine bars\", \"page\": \"Espresso\"}}], \"follow_up_questions\": []}}")
    };
    assert!(accepts(&m, &said("Espresso needs nine bars.")));
    assert!(!accepts(&m, &said("Nine bars")));
    let notes = claim_line_schema();
    let grounds = source("Tides follow the Moon. Spring tides are higher.", None);
    let lark = grounded_lark(
        &bound_schema(&notes, 1024),
        &grounds,
        true,
        Shape::Sentences,
    )
    .unwrap();
    let m = matcher(&lark);
    let line = |text: &str| {
        format!("{{\"type\": \"claim\", \"text\": \"{text}\", \"confidence\": \"sourced\", \"quote\": \"Spring tides are higher\"}}\n")
    };
    assert!(accepts(&m, &line("Spring tides rise the most.")));
    assert!(!accepts(&m, &line("Spring tides")));
}

/// A sentence claim's terminal stays cheap and bounded whatever room the budget gives a
/// string: a sentence is accepted at every budget that leaves room for it, and one over
/// [`MAX_CLAIM_CHARS`] never is.
#[test]
fn with_sentence_claims_a_claim_is_bounded_at_every_budget() {
    let notes = claim_line_schema();
    let grounds = source("Tides follow the Moon. Spring tides are higher.", None);
    let long = format!("Spring tides {}rise.", "really ".repeat(60));
    assert!(long.len() as u64 > MAX_CLAIM_CHARS);
    for lines in [false, true] {
        for budget in [256u32, 1024, 4096, 16_000] {
            let lark = grounded_lark(
                &bound_schema(&notes, budget),
                &grounds,
                lines,
                Shape::Sentences,
            )
            .unwrap();
            let m = matcher(&lark);
            let said = |text: &str| {
                let end = if lines { "\n" } else { "" };
                format!("{{\"type\": \"claim\", \"text\": \"{text}\", \"confidence\": \"inferred\", \"quote\": null}}{end}")
            };
            assert!(
                accepts(&m, &said("Spring tides rise the most.")),
                "lines {lines}, budget {budget}"
            );
            assert!(!accepts(&m, &said(&long)), "lines {lines}, budget {budget}");
        }
    }
}

/// The schema of a part's claim line: the claim's words are its `text`.
fn claim_line_schema() -> Value {
    json!({"type": "object", "properties": {
        "type": {"const": "claim"}, "text": {"type": "string"},
        "confidence": {"enum": ["sourced", "inferred", "opinion"], "default": "inferred"},
        "quote": {"type": ["string", "null"], "default": null}},
     "required": ["type", "text"]})
}
