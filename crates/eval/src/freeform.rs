//! The free-form baseline: the same source, asked for as a markdown article with no schema,
//! so the output tokens of a structured answer can be compared with a plain one.

use wikimind::compile::prompt::Prompt;

/// The id of the free-form prompt, recorded in reports.
pub const FREEFORM_PROMPT_VERSION: &str = "freeform-v1";

/// A prompt asking for the same content as the compile prompt (title, summary, claims with
/// quotes, concepts, related articles, open questions, body) as free markdown text.
pub fn freeform_prompt(source_title: Option<&str>, source_text: &str) -> Prompt {
    let system = "You are WikiMind, a careful knowledge compiler. You turn one source document \
into one wiki article, written in markdown.

The article has: a short, specific title as a heading; a summary of two or three sentences; \
the most important claims of the source, each with a short verbatim quote from the source when \
the source states it, and marked as an inference or an opinion otherwise; the key concepts; \
titles of related articles, as [[Title]] links; the questions the source leaves open; and the \
article itself in short paragraphs.

Write only what the source supports."
        .to_string();
    let mut user = String::with_capacity(source_text.len() + 128);
    if let Some(t) = source_title {
        user.push_str("Source title: ");
        user.push_str(t);
        user.push('\n');
    }
    user.push_str("Source:\n<<<SOURCE\n");
    user.push_str(source_text.trim_end());
    user.push_str("\nSOURCE>>>\n\nWrite the article in markdown.");
    Prompt { system, user }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_freeform_prompt_asks_for_markdown_not_json() {
        let p = freeform_prompt(Some("tea.md"), "Steep green tea at 80 degrees.\n");
        assert!(p
            .user
            .contains("<<<SOURCE\nSteep green tea at 80 degrees.\nSOURCE>>>"));
        assert!(p.user.ends_with("Write the article in markdown."));
        assert!(!p.system.contains("JSON"));
    }
}
