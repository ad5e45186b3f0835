//! The compile prompt: the contract and rules for the model, the source, and what the
//! wiki already holds. Versioned: the version is stored with every compilation.

/// The version of the built-in compile prompt; the version actually used (an override
/// may change it) is recorded in the compile log.
pub const PROMPT_VERSION: &str = "compile-v2";

/// How many known titles and concepts are listed in a prompt at most.
pub(crate) const MAX_KNOWN: usize = 200;

pub use crate::prompts::templates::Prompt;
use crate::prompts::templates::{PromptSet, PromptTemplate, COMPILE};

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

/// The most problems a retry lists.
const MAX_FEEDBACK_PROBLEMS: usize = 20;

/// The most characters of one problem a retry or a failure reason repeats (a problem that
/// lists 2,000 sources is cut).
pub const MAX_PROBLEM_CHARS: usize = 500;

/// The message sent after an answer that could not be made valid: what was wrong, so the
/// model can fix it.
pub fn feedback_message(problems: &[String], truncated: bool) -> String {
    feedback_message_within(problems, truncated, usize::MAX)
}

/// [`feedback_message`] in at most `max_chars` bytes (never less than its fixed sentences):
/// the first 20 problems, each cut at [`MAX_PROBLEM_CHARS`], as many as fit, then how many
/// were left out.
pub fn feedback_message_within(problems: &[String], truncated: bool, max_chars: usize) -> String {
    const HEAD: &str = "Your answer could not be used:\n";
    const CUT_OFF: &str = "The answer was cut off: keep the article shorter so it fits.\n";
    const TAIL: &str =
        "Answer again with one complete JSON object that follows the rules, and nothing else.";
    // Room for the line that says how many problems were left out.
    const MORE: usize = 48;
    let fixed = HEAD.len() + if truncated { CUT_OFF.len() } else { 0 } + TAIL.len();
    let mut room = max_chars.saturating_sub(fixed);
    let mut msg = String::from(HEAD);
    let mut listed = 0;
    for p in problems.iter().take(MAX_FEEDBACK_PROBLEMS) {
        let reserve = if listed + 1 < problems.len() { MORE } else { 0 };
        let avail = room.saturating_sub(reserve);
        let mut line = format!("- {}\n", shorten(p, MAX_PROBLEM_CHARS));
        if line.len() > avail && listed == 0 && avail >= 40 {
            // The first problem is what the model most needs: cut to fit rather than lost.
            line = format!("- {}\n", shorten(p, avail - 6));
        }
        if line.len() > avail {
            break;
        }
        room -= line.len();
        msg.push_str(&line);
        listed += 1;
    }
    let left_out = problems.len() - listed;
    if left_out > 0 {
        let line = format!("- … and {left_out} more problem(s)\n");
        if line.len() <= room {
            msg.push_str(&line);
        }
    }
    if truncated {
        msg.push_str(CUT_OFF);
    }
    msg.push_str(TAIL);
    msg
}

/// `text` cut after `max` bytes (at a character boundary) with `…` when longer.
pub fn shorten(text: &str, max: usize) -> std::borrow::Cow<'_, str> {
    if text.len() <= max {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    std::borrow::Cow::Owned(format!("{}…", &text[..end]))
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

    /// Regression: one problem listing every missing source of a 2,000-source page made a
    /// retry of ~52,000 characters, which overflowed an 8,192-token context.
    #[test]
    fn feedback_fits_the_room_it_is_given() {
        let sources: Vec<String> = (1..=2_000)
            .map(|i| format!("source {i} (Espresso)"))
            .collect();
        let huge = format!(
            "the page lost every sourced claim of {}",
            sources.join(", ")
        );
        let many: Vec<String> = (0..50).map(|i| format!("/claims/{i}: bad")).collect();
        for problems in [vec![huge.clone()], many.clone(), vec![huge.clone(); 30]] {
            for room in [400, 1_000, 5_000] {
                let m = feedback_message_within(&problems, true, room);
                assert!(m.len() <= room, "{} > {room}: {m}", m.len());
                assert!(m.starts_with("Your answer could not be used:\n- "), "{m}");
                assert!(m.ends_with("and nothing else."), "{m}");
            }
        }
        let m = feedback_message_within(&many, false, 1_000);
        assert!(
            m.contains("- /claims/0: bad\n") && m.contains("more problem(s)"),
            "{m}"
        );
        // A huge problem is cut, never dropped whole.
        let m = feedback_message(&[huge], false);
        assert!(m.contains("source 1 (Espresso)") && m.contains('…'), "{m}");
        assert!(m.len() < MAX_PROBLEM_CHARS + 200, "{}", m.len());
        // Few short problems read as before.
        assert_eq!(
            feedback_message(&["/title: missing".into()], false),
            "Your answer could not be used:\n- /title: missing\nAnswer again with one complete \
             JSON object that follows the rules, and nothing else."
        );
    }

    #[test]
    fn feedback_lists_problems() {
        let m = feedback_message(&["/title: expected a string".into()], true);
        assert!(m.contains("- /title: expected a string\n"));
        assert!(m.contains("cut off"));
    }
}
