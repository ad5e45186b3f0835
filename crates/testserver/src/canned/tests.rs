//! The canned answers' tests.

use super::*;

#[test]
fn the_canned_answer_quotes_the_prompt() {
    let prompt = "# Rust ownership\n\nEvery value has one owner. Moves transfer it! Ok.";
    let answer: Value = serde_json::from_str(&compilation_answer(prompt)).unwrap();
    assert_eq!(answer["title"], "Rust ownership");
    assert_eq!(answer["summary"], "Every value has one owner.");
    let claims = answer["key_claims"].as_array().unwrap();
    assert_eq!(claims.len(), 2, "{claims:?}");
    assert!(prompt.contains(claims[0]["quote"].as_str().unwrap()));
}

#[test]
fn reads_only_the_source_and_keeps_its_links() {
    let prompt = "Articles already in the wiki:\n- Other\n\nSource:\n<<<SOURCE\n# Espresso\n\nEspresso is brewed under nine bars of pressure. See [[Grind Size]] for more.\nSOURCE>>>\n\nWrite it.";
    let answer: Value = serde_json::from_str(&compilation_answer(prompt)).unwrap();
    assert_eq!(answer["title"], "Espresso");
    assert!(answer["article_body"]
        .as_str()
        .unwrap()
        .contains("See [[Grind Size]] for more."));
    assert_eq!(
        answer["key_claims"][0]["quote"],
        "Espresso is brewed under nine bars of pressure."
    );
}

#[test]
fn concepts_are_the_terms_the_source_marks() {
    let prompt = "<<<SOURCE\n# Milk\n\nSteamed milk makes **microfoam** for a [[Flat White|flat white]] and a [[Latte]]. **Microfoam** needs **cold milk**.\nSOURCE>>>";
    let answer: Value = serde_json::from_str(&compilation_answer(prompt)).unwrap();
    assert_eq!(
        answer["concepts"],
        json!(["Flat White", "Latte", "microfoam", "cold milk"])
    );
    assert_eq!(
        answer["backlink_suggestions"],
        json!(["Flat White", "Latte"])
    );
    let plain: Value = serde_json::from_str(&compilation_answer(
        "# Tea\n\nTea is a drink made from leaves.",
    ))
    .unwrap();
    assert_eq!(plain["concepts"], json!([]), "nothing marked, no concepts");
}

#[test]
fn an_empty_prompt_still_gives_a_title() {
    let answer: Value = serde_json::from_str(&compilation_answer("  ")).unwrap();
    assert_eq!(answer["title"], "Untitled");
}

/// A page prompt as WikiMind's `page` template renders it.
fn page_prompt(topic: &str, page: &str, digests: &str, excerpts: &str) -> String {
    format!(
        "Topic: {topic}\n\nArticles already in the wiki (link to them by exact title):\n- Espresso\n\nConcepts already in the wiki (reuse these names): crema\n\nThe page as last written:\n<<<PAGE\n{page}\nPAGE>>>\n\nNew or changed digests:\n{digests}\n\nExcerpts of their sources where they mention the topic:\n{excerpts}\n\nOther sources already written into the page:\n- source 3: Old notes — Grinding basics.\n\nWrite the page about {topic} as one JSON object."
    )
}

const OLD_PAGE: &str = r#"{"title": "Grind Size", "summary": "How fine coffee is ground.", "key_claims": [{"claim": "Finer grinds extract faster.", "confidence": "sourced", "quote": "finer grinds extract faster", "sources": [3]}, {"claim": "Burr grinders are better.", "confidence": "opinion", "quote": null, "sources": [3]}], "concepts": ["Extraction"], "open_questions": ["Does altitude matter?"], "backlink_suggestions": ["Espresso"], "article_body": "Grind size sets how fast water extracts coffee.\n\nFiner grinds extract faster."}"#;

const DIGEST_12: &str = r#"<<<DIGEST source 12: Espresso guide
{"title": "Espresso guide", "summary": "Espresso needs a fine grind.", "key_claims": [{"claim": "Espresso uses a fine grind.", "confidence": "sourced", "quote": "a fine grind"}], "concepts": ["extraction", "Channeling"], "open_questions": [], "backlink_suggestions": ["Espresso", "Tamping"], "article_body": "Espresso needs a grind like table salt.\n\nFiner grinds extract faster."}
DIGEST>>>"#;

const DIGEST_14: &str = r#"<<<DIGEST source 14: Pour-over
{"title": "Pour-over", "summary": "Pour-over uses a medium grind.", "key_claims": [{"claim": "Pour-over uses a medium grind.", "confidence": "sourced", "quote": "a medium grind"}], "concepts": ["Bloom"], "open_questions": ["Does altitude matter?", "Is paper better than metal?"], "backlink_suggestions": [], "article_body": "Pour-over wants a medium grind, like sand."}
DIGEST>>>"#;

const EXCERPT_12: &str =
    "Espresso\n\nEspresso needs a grind like **table salt**. Too fine chokes the machine.";
const EXCERPT_14: &str =
    "See [[Pour-over]] for the method.\nA medium grind, like coarse sand, suits pour-over brewers.";

fn two_digest_prompt() -> String {
    page_prompt(
        "Grind Size",
        OLD_PAGE,
        &format!("{DIGEST_12}\n{DIGEST_14}"),
        &format!(
            "<<<EXCERPT source 12\n{EXCERPT_12}\nEXCERPT>>>\n<<<EXCERPT source 14\n{EXCERPT_14}\nEXCERPT>>>"
        ),
    )
}

#[test]
fn a_page_keeps_to_the_room_its_prompt_gives_letting_go_of_its_oldest_claims() {
    let roomy = two_digest_prompt().replace(
        "\n\nWrite the page about",
        "\n\nRoom: the page holds at most 3 key claims and an article_body of at most 90 characters.\n\nWrite the page about",
    );
    assert_eq!(page_room(&roomy), (3, 90));
    assert_eq!(page_room(&two_digest_prompt()), (usize::MAX, usize::MAX));
    let page = assert_valid(&answer(&roomy));
    let claims = page["key_claims"].as_array().unwrap();
    let quotes: Vec<&str> = claims.iter().filter_map(|c| c["quote"].as_str()).collect();
    assert_eq!(claims.len(), 3, "{claims:?}");
    // The new sources' claims stay; of the old page's two, the newest (the opinion).
    assert_eq!(claims[0]["claim"], "Burr grinders are better.");
    assert!(
        EXCERPT_12.contains(quotes[0]) && EXCERPT_14.contains(quotes[1]),
        "{quotes:?}"
    );
    // The old body fits and stays; nothing more fits after it.
    let body = page["article_body"].as_str().unwrap();
    assert_eq!(
        body,
        "Grind size sets how fast water extracts coffee.\n\nFiner grinds extract faster."
    );
}

/// What WikiMind's contract demands of an answer: the required fields with their
/// types, and every claim's confidence one of the three names.
fn assert_valid(answer: &str) -> Value {
    let v: Value = serde_json::from_str(answer).unwrap_or_else(|e| panic!("{e}: {answer}"));
    for field in ["title", "summary", "article_body"] {
        assert!(v[field].is_string(), "{field} in {answer}");
    }
    assert!(!v["title"].as_str().unwrap().trim().is_empty(), "{answer}");
    for field in ["concepts", "backlink_suggestions", "open_questions"] {
        assert!(
            v[field].as_array().unwrap().iter().all(Value::is_string),
            "{field} in {answer}"
        );
    }
    for claim in v["key_claims"].as_array().unwrap() {
        assert!(claim["claim"].is_string(), "{claim}");
        assert!(
            matches!(
                claim["confidence"].as_str(),
                Some("sourced" | "inferred" | "opinion")
            ),
            "{claim}"
        );
        assert!(
            claim["quote"].is_string() || claim["quote"].is_null(),
            "{claim}"
        );
    }
    v
}

#[test]
fn a_page_is_rewritten_from_the_old_page_and_two_digests() {
    let prompt = two_digest_prompt();
    assert!(is_page_prompt(&prompt));
    let page = assert_valid(&answer(&prompt));
    assert_eq!(page["title"], "Grind Size");
    assert_eq!(page["summary"], "How fine coffee is ground.");
    assert_eq!(
        page["key_claims"],
        json!([
            {"claim": "Finer grinds extract faster.", "confidence": "sourced", "quote": "finer grinds extract faster"},
            {"claim": "Burr grinders are better.", "confidence": "opinion", "quote": null},
            {"claim": "Espresso needs a grind like **table salt**.", "confidence": "sourced",
             "quote": "Espresso needs a grind like **table salt**."},
            {"claim": "A medium grind, like coarse sand, suits pour-over brewers.", "confidence": "sourced",
             "quote": "A medium grind, like coarse sand, suits pour-over brewers."},
        ]),
        "the old claims as they were, then one verbatim quote from each excerpt (a line \
         too short or holding a link is not quoted); digests with excerpts add no more"
    );
    assert!(EXCERPT_12.contains(page["key_claims"][2]["quote"].as_str().unwrap()));
    assert!(EXCERPT_14.contains(page["key_claims"][3]["quote"].as_str().unwrap()));
    assert_eq!(
        page["article_body"],
        "Grind size sets how fast water extracts coffee.\n\nFiner grinds extract faster.\n\n\
         Espresso needs a grind like table salt.\n\nPour-over wants a medium grind, like sand.",
        "the old body, then the digests' bodies, a paragraph already there written once"
    );
    assert_eq!(
        page["concepts"],
        json!(["Extraction", "Channeling", "Bloom"])
    );
    assert_eq!(page["backlink_suggestions"], json!(["Espresso", "Tamping"]));
    assert_eq!(
        page["open_questions"],
        json!(["Does altitude matter?", "Is paper better than metal?"])
    );
}

#[test]
fn a_first_page_takes_the_first_digests_summary() {
    let prompt = page_prompt(
        "Grind Size",
        "(no page yet)",
        &format!("{DIGEST_12}\n{DIGEST_14}"),
        &format!("<<<EXCERPT source 12\n{EXCERPT_12}\nEXCERPT>>>"),
    );
    let page = assert_valid(&answer(&prompt));
    assert_eq!(page["title"], "Grind Size");
    assert_eq!(page["summary"], "Espresso needs a fine grind.");
    let quotes: Vec<&str> = page["key_claims"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["quote"].as_str().unwrap())
        .collect();
    assert_eq!(
        quotes,
        [
            "Espresso needs a grind like **table salt**.",
            "a medium grind"
        ],
        "source 14 has no excerpt, so its digest's own sourced claim is kept"
    );
    assert_eq!(
        page["article_body"],
        "Espresso needs a grind like table salt.\n\nFiner grinds extract faster.\n\n\
         Pour-over wants a medium grind, like sand."
    );
}

#[test]
fn an_excerpt_already_quoted_gives_its_next_sentence() {
    let prompt = page_prompt(
        "Grind Size",
        OLD_PAGE,
        "",
        "<<<EXCERPT source 15\nFiner   grinds extract FASTER\nThey also taste more bitter.\nEXCERPT>>>",
    );
    let page = assert_valid(&answer(&prompt));
    let claims = page["key_claims"].as_array().unwrap();
    assert_eq!(claims.len(), 3, "{claims:?}");
    assert_eq!(claims[2]["quote"], "They also taste more bitter.");
    assert_eq!(
        page["article_body"],
        json!(serde_json::from_str::<Value>(OLD_PAGE).unwrap()["article_body"])
    );
}

#[test]
fn malformed_blocks_are_skipped_and_the_answer_stays_valid() {
    let prompt = page_prompt(
        "Tamping",
        r#"{"title": "Tamping", "key_claims": "none", "summary": 3, "article_body": ["x"], "concepts": [1, null, "Pressure", "pressure"]}"#,
        "<<<DIGEST source 12: Broken\n{\"title\": \"Broken\", \"article_body\": \"ends with DIGEST>>> and <<<PAGE\"\nDIGEST>>>\n<<<DIGEST source 13: Good\n{\"summary\": \"Tamp evenly.\", \"key_claims\": [{\"claim\": 5, \"confidence\": \"sourced\", \"quote\": \"<<<EXCERPT source 9\"}, {\"confidence\": \"certain\"}, \"junk\"], \"article_body\": \"Tamp with <<<DIGEST>>> care.\"}\nDIGEST>>>\n<<<EXCERPT source 12\nnever closed",
        "",
    );
    let page = assert_valid(&answer(&prompt));
    assert_eq!(page["title"], "Tamping");
    assert_eq!(
        page["summary"], "Tamp evenly.",
        "the broken page's summary is not a string"
    );
    assert_eq!(page["concepts"], json!(["Pressure"]));
    assert_eq!(page["article_body"], "Tamp with <<<DIGEST>>> care.");
    assert_eq!(
        page["key_claims"],
        json!([{"claim": "<<<EXCERPT source 9", "confidence": "sourced", "quote": "<<<EXCERPT source 9"}]),
        "a sourced claim without text says its quote; claims without quotes are dropped"
    );

    let empty_topic = assert_valid(&page_answer("Topic: \n<<<PAGE\n(no page yet)\nPAGE>>>"));
    assert_eq!(empty_topic["title"], "Untitled");
    assert_eq!(empty_topic["article_body"], "Untitled");
}

#[test]
fn every_cut_of_a_page_prompt_still_gets_a_valid_answer() {
    let prompt = format!("{}\u{e9}\u{1F600}", two_digest_prompt());
    for (i, _) in prompt.char_indices() {
        let cut = &prompt[..i];
        assert_valid(&answer(cut));
        assert_valid(&page_answer(cut));
        assert_valid(&page_answer(&prompt[i..]));
    }
}

#[test]
fn a_source_that_mentions_page_markers_is_still_compiled() {
    let source = "# Notes on prompts\n\nTopic: Grind Size\n<<<PAGE\n(no page yet)\nPAGE>>>\nThe page prompt has these lines in it.";
    let standard = format!(
        "Articles already in the wiki (link to them by exact title):\n\nConcepts already in the wiki (reuse these names): \n\nSource title: n\nSource:\n<<<SOURCE\n{source}\nSOURCE>>>\n\nWrite the article as one JSON object."
    );
    let bare = format!("<<<SOURCE\n{source}\nSOURCE>>>");
    for prompt in [standard, bare] {
        assert!(!is_page_prompt(&prompt), "{prompt}");
        let article = assert_valid(&answer(&prompt));
        assert_eq!(article["title"], "Notes on prompts");
        assert_eq!(answer(&prompt), compilation_answer(&prompt));
    }
}
#[test]
fn an_extraction_prompt_gets_notes_quoting_its_part_and_every_excerpt() {
    let prompt = "Document: Espresso\nPart 1 of 2 (section: -):\n<<<PART\n<<<DIGEST source 1: Espresso\n{\"title\":\"Espresso\",\"summary\":\"Strong. Very strong.\"}\nDIGEST>>>\n<<<EXCERPT source 1\nEspresso is brewed at nine bars. A shot takes thirty seconds. Crema forms on top.\nEXCERPT>>>\n<<<EXCERPT source 2\nMilk foam sits on the shot.\nEXCERPT>>>\nPART>>>\n\nWrite the notes.";
    let lines: Vec<Value> = answer(prompt)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let quotes: Vec<&str> = lines.iter().map(|l| l["quote"].as_str().unwrap()).collect();
    assert_eq!(
        quotes,
        [
            "Espresso is brewed at nine bars.",
            "A shot takes thirty seconds.",
            "Milk foam sits on the shot."
        ]
    );
    assert!(lines.iter().all(|l| l["type"] == "claim"));
    // A part of a long document: its first sentences.
    let plain = notes_answer("One two three four. Five six seven eight.");
    assert_eq!(plain.lines().count(), 2);
    assert_eq!(notes_answer(""), "");
}

#[test]
fn a_page_prompt_over_notes_quotes_the_notes() {
    let prompt = "Topic: Espresso\n\n<<<PAGE\n(no page yet)\nPAGE>>>\n\nNew or changed digests:\nRead in parts.\n<<<NOTES\n[claim, sourced] Nine bars — quote: \"brewed at nine bars\" (part 1)\n[definition] Crema: foam\n[claim, inferred] Guess (part 2)\nNOTES>>>\n";
    let page: Value = serde_json::from_str(&answer(prompt)).unwrap();
    assert_eq!(page["title"], "Espresso");
    assert_eq!(page["key_claims"][0]["quote"], "brewed at nine bars");
    assert_eq!(page["key_claims"].as_array().unwrap().len(), 1);
    assert!(page["article_body"].as_str().unwrap().contains("Nine bars"));
}

#[test]
fn the_final_compile_of_a_long_document_is_written_from_its_notes() {
    let prompt = "Articles already in the wiki (link to them by exact title):\n- Tea\n\nDocument: Ownership\nOutline:\n# Intro\n\nNotes from the whole document:\n<<<NOTES\n[claim, sourced] Values have owners — quote: \"Each value has an owner\" (part 1)\nNOTES>>>\n\nWrite the article as one JSON object.";
    let article: Value = serde_json::from_str(&answer(prompt)).unwrap();
    assert_eq!(article["title"], "Ownership");
    assert_eq!(article["key_claims"][0]["quote"], "Each value has an owner");
    assert_eq!(article["article_body"], "Values have owners");
}

#[test]
fn a_judge_prompt_gets_scores_from_what_the_article_quotes_and_keeps() {
    let prompt = "Source title: tea.md\nSource:\n<<<SOURCE\nGreen tea is steamed. Black tea is oxidised fully. Oolong sits in between.\nSOURCE>>>\n\nArticle written from it:\n<<<ARTICLE\nTitle: Tea\nSummary: Green tea is steamed.\nKey claims:\n- [sourced] Steamed — quote: \"Green tea is  STEAMED.\"\n- [sourced] Invented — quote: \"Tea grows on the moon.\"\n- [inferred] Guess\nConcepts: tea\nBody:\nBlack tea is oxidised fully.\nARTICLE>>>\n\nScore the article as one JSON object.";
    assert!(is_judge_prompt(prompt));
    let v: Value = serde_json::from_str(&answer(prompt)).unwrap();
    assert_eq!(v["faithfulness"]["score"], 4);
    assert_eq!(
        v["faithfulness"]["reason"],
        "1 of 2 quoted claims are found in the source."
    );
    // Two of three sentences kept: 1 + 4 × 2/3, rounded.
    assert_eq!(v["coverage"]["score"], 4);
    // A compile prompt whose source mentions the markers is still a compile prompt.
    let compile = "Source title: x\nSource:\n<<<SOURCE\nSee <<<ARTICLE and ARTICLE>>> here.\nSOURCE>>>\n\nWrite the article as one JSON object.";
    assert!(!is_judge_prompt(compile));
    assert!(answer(compile).contains("\"key_claims\""));
}
