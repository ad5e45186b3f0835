//! The compile prompt: the contract and rules for the model, the source, and what the
//! wiki already holds. Versioned: the version is stored with every compilation.

/// The version of the built-in compile prompt; the version actually used (an override
/// may change it) is recorded in the compile log.
pub const PROMPT_VERSION: &str = "compile-v2";

/// How many known titles and concepts are listed in a prompt at most.
pub(crate) const MAX_KNOWN: usize = 200;

pub use super::templates::Prompt;
use super::templates::{PromptSet, PromptTemplate, COMPILE};

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

/// Builds the prompt for one source with the built-in compile template.
pub fn build_prompt(input: &PromptInput<'_>) -> Prompt {
    build_prompt_with(PromptSet::builtin().get(COMPILE), input)
}

/// Builds the prompt for one source with `template` (the `compile` template or an override).
pub fn build_prompt_with(template: &PromptTemplate, input: &PromptInput<'_>) -> Prompt {
    let titles = list_lines(input.known_titles);
    let concepts = known_concepts(input.known_concepts);
    template.render(&[
        ("source", input.source_text.trim_end()),
        ("source_title", input.source_title.unwrap_or("(untitled)")),
        ("known_titles", &titles),
        ("known_concepts", &concepts),
    ])
}

/// Known titles as a markdown list, or `(none yet)`.
pub fn list_lines(items: &[String]) -> String {
    if items.is_empty() {
        return "(none yet)".to_string();
    }
    let mut out = String::new();
    for t in items.iter().take(MAX_KNOWN) {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str("- ");
        out.push_str(t);
    }
    out
}

/// Known concepts, comma-separated, or `(none yet)`.
pub fn known_concepts(items: &[String]) -> String {
    if items.is_empty() {
        return "(none yet)".to_string();
    }
    items
        .iter()
        .take(MAX_KNOWN)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(", ")
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
        assert!(p.user.contains("Source title: notes.md"));
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
