//! The compile prompt: the contract and rules for the model, the source, and what the
//! wiki already holds. Versioned: the version is stored with every compilation.

/// The version of the compile prompt; recorded in the compile log.
pub const PROMPT_VERSION: &str = "compile-v1";

/// How many known titles and concepts are listed in a prompt at most.
const MAX_KNOWN: usize = 200;

/// What the compile prompt is built from.
#[derive(Debug, Clone, Copy)]
pub struct PromptInput<'a> {
    /// The source's title, when it has one (a file name, a page title).
    pub source_title: Option<&'a str>,
    /// The source text.
    pub source_text: &'a str,
    /// Titles of articles already in the wiki.
    pub known_titles: &'a [String],
    /// Concept names already in the wiki.
    pub known_concepts: &'a [String],
}

/// A system and a user message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prompt {
    /// The contract and the rules.
    pub system: String,
    /// The source and the wiki's context.
    pub user: String,
}

/// The system message: the contract, and the rules a good article follows.
pub fn system_prompt() -> String {
    "You are WikiMind, a careful knowledge compiler. You turn one source document into one \
wiki article, answering with a single JSON object and nothing else (no prose, no code fence).

The JSON object has these fields:
- \"title\": a short, specific article title (string).
- \"summary\": two or three sentences saying what the article covers (string).
- \"key_claims\": the most important claims of the source, as objects {\"claim\", \"confidence\", \"quote\"}:
  - \"confidence\" is \"sourced\" when the source states the claim; then \"quote\" MUST be a short \
verbatim quote (a few words to one sentence) copied exactly from the source.
  - \"inferred\" when the claim follows from the source but is not stated in it; \"quote\" is null \
or a supporting excerpt.
  - \"opinion\" for judgements; \"quote\" is the source's words when the opinion is the source's.
  Never label a claim \"sourced\" without an exact quote from the source.
- \"concepts\": the key concepts (short noun phrases). Reuse the exact names of existing \
concepts listed below when they fit.
- \"backlink_suggestions\": titles of other articles this one relates to. Use the exact titles \
of existing articles listed below; you may also name articles that should exist.
- \"open_questions\": questions the source leaves open.
- \"article_body\": the article in markdown (headings, lists, short paragraphs). Link to other \
articles with [[Exact Title]] or [[Exact Title|shown text]], using existing titles where they fit.

Write only what the source supports. Keep the answer valid JSON: escape quotes and newlines \
inside strings."
        .to_string()
}

/// Builds the prompt for one source.
pub fn build_prompt(input: &PromptInput<'_>) -> Prompt {
    let mut user = String::with_capacity(input.source_text.len() + 1024);
    if !input.known_titles.is_empty() {
        user.push_str("Articles already in the wiki (link to them by exact title):\n");
        for t in input.known_titles.iter().take(MAX_KNOWN) {
            user.push_str("- ");
            user.push_str(t);
            user.push('\n');
        }
        user.push('\n');
    }
    if !input.known_concepts.is_empty() {
        user.push_str("Concepts already in the wiki (reuse these names): ");
        let shown: Vec<&str> = input
            .known_concepts
            .iter()
            .take(MAX_KNOWN)
            .map(String::as_str)
            .collect();
        user.push_str(&shown.join(", "));
        user.push_str("\n\n");
    }
    if let Some(t) = input.source_title {
        user.push_str("Source title: ");
        user.push_str(t);
        user.push('\n');
    }
    user.push_str("Source:\n<<<SOURCE\n");
    user.push_str(input.source_text.trim_end());
    user.push_str("\nSOURCE>>>\n\nWrite the article as one JSON object.");
    Prompt {
        system: system_prompt(),
        user,
    }
}

/// The message sent after an answer that could not be made valid: what was wrong, so the
/// model can fix it.
pub fn feedback_message(problems: &[String], truncated: bool) -> String {
    let mut msg = String::from("Your answer could not be used:\n");
    for p in problems.iter().take(20) {
        msg.push_str("- ");
        msg.push_str(p);
        msg.push('\n');
    }
    if truncated {
        msg.push_str("The answer was cut off: keep the article shorter so it fits.\n");
    }
    msg.push_str(
        "Answer again with one complete JSON object that follows the rules, and nothing else.",
    );
    msg
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompt_carries_source_and_known_wiki() {
        let titles = vec!["Borrowing".to_string()];
        let concepts = vec!["ownership".to_string(), "lifetimes".to_string()];
        let p = build_prompt(&PromptInput {
            source_title: Some("notes.md"),
            source_text: "Rust has ownership.\n",
            known_titles: &titles,
            known_concepts: &concepts,
        });
        assert!(p.user.contains("- Borrowing\n"));
        assert!(p.user.contains("ownership, lifetimes"));
        assert!(p.user.contains("<<<SOURCE\nRust has ownership.\nSOURCE>>>"));
        assert!(p.system.contains("\"sourced\""));
        assert!(p.system.contains("[[Exact Title]]"));
    }

    #[test]
    fn feedback_lists_problems() {
        let m = feedback_message(&["/title: expected a string".into()], true);
        assert!(m.contains("- /title: expected a string\n"));
        assert!(m.contains("cut off"));
    }
}
