//! Repetition in the built-in engine's answers: the repetition penalty, which of the
//! answer's tokens it remembers ([`RepeatScope`]) and the scores of those it makes less
//! likely, off by default ([`DEFAULT_REPEAT_PENALTY`]; `docs/compiling.md` has the
//! measurements behind that); and a JSONL answer that writes a line it wrote before
//! ([`LineRepeats`]), which ends there.

use std::collections::VecDeque;

/// The repetition penalty of a new provider (see
/// [`BuiltinProvider::with_repeat_penalty`](super::BuiltinProvider::with_repeat_penalty)):
/// off. Measured on real notes with grounded decoding (`docs/compiling.md`), a penalty
/// made no digest more distinct and cost sourced claims: on every token it pushed
/// SmolLM2-135M's claims away from `sourced`, on words at 1.3 Gemma 3 270M's.
pub const DEFAULT_REPEAT_PENALTY: f32 = 1.0;
/// How many of the answer's last tokens the repetition penalty looks at (of the tokens
/// its [`RepeatScope`] counts).
pub const REPEAT_WINDOW: usize = 64;
/// The tokens the repetition penalty of a new provider counts (see
/// [`BuiltinProvider::with_repeat_scope`](super::BuiltinProvider::with_repeat_scope)): the
/// answer's own words, since a penalty on every token also falls on `"sourced"` and
/// `"confidence"`, which every claim repeats.
pub const DEFAULT_REPEAT_SCOPE: RepeatScope = RepeatScope::Words;

/// Which of the answer's tokens the repetition penalty remembers, and so makes less likely.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RepeatScope {
    /// Every token: JSON's quotes, commas and brackets too.
    All,
    /// Only the answer's own words: tokens that hold a letter or a digit and are not part
    /// of one of the schema's keys or enum values. Words repeat less, while what the
    /// grammar needs in every item (`"`, `", "`, `{`, `]`, `"confidence"`, `"sourced"`)
    /// keeps its scores.
    Words,
}

/// The penalty of one request: the answer's last [`REPEAT_WINDOW`] remembered tokens and
/// the scores it hands the sampler.
pub(super) struct Repetition {
    penalty: f32,
    scope: RepeatScope,
    /// The schema's keys and enum values ([`schema_words`]).
    keywords: Vec<String>,
    recent: VecDeque<i32>,
    penalised: Vec<f32>,
}

impl Repetition {
    /// The penalty `penalty` over the tokens `scope` counts, for an answer of `schema`.
    pub(super) fn new(
        penalty: f32,
        scope: RepeatScope,
        schema: Option<&serde_json::Value>,
    ) -> Repetition {
        Repetition {
            penalty,
            scope,
            keywords: schema_words(schema),
            recent: VecDeque::new(),
            penalised: Vec::new(),
        }
    }

    /// The scores to sample from: `logits` themselves when the penalty is off or nothing is
    /// remembered yet, else a penalised copy.
    pub(super) fn scores<'a>(&'a mut self, logits: &'a [f32]) -> &'a [f32] {
        if self.penalty > 1.0 && !self.recent.is_empty() {
            penalise(logits, &self.recent, self.penalty, &mut self.penalised);
            &self.penalised
        } else {
            logits
        }
    }

    /// Remembers the answer's next token, whose text is `piece`, when the scope counts it.
    pub(super) fn remember(&mut self, token: i32, piece: &[u8]) {
        if remembered(piece, self.scope, &self.keywords) {
            if self.recent.len() == REPEAT_WINDOW {
                self.recent.pop_front();
            }
            self.recent.push_back(token);
        }
    }
}

/// Watches a JSONL answer for a line that repeats, verbatim, a line written before it.
///
/// Measured with SmolLM2-135M reading `docs/compiling.md` (21 KB) in parts, grounded, at
/// the compile's budget of 4096 tokens: each of its three extraction calls ran to the
/// budget, 75, 121 and 111 lines holding 2, 2 and 3 distinct ones; the model wrote a line
/// or two and then said one of them again and again. Let through 16 repeats, none of
/// those loops had ended; the one new line each wrote later was nonsense
/// (`"definition": "LgLlG::LgLlG::LgLg::LgLg"`). A line said again adds nothing, so the
/// engine ends the answer after the first one, as if the model had stopped there: every
/// line is whole, and the JSONL grammar accepts an answer ending at any line.
#[derive(Default)]
pub(super) struct LineRepeats {
    /// The lines written so far (an answer is at most a few thousand tokens).
    lines: std::collections::HashSet<String>,
    /// The line being written.
    current: String,
}

impl LineRepeats {
    /// Takes the answer's next `piece` of text. When a line ends in it that repeats an
    /// earlier line, the length of `piece` up to and including that line's `\n`: the
    /// answer ends there.
    pub(super) fn push(&mut self, piece: &str) -> Option<usize> {
        let mut start = 0;
        for (at, _) in piece.match_indices('\n') {
            self.current.push_str(&piece[start..at]);
            start = at + 1;
            let line = std::mem::take(&mut self.current);
            let line = line.trim();
            if line.is_empty() {
                continue;
            }
            if !self.lines.insert(line.to_string()) {
                return Some(start);
            }
        }
        self.current.push_str(&piece[start..]);
        None
    }
}

/// `logits` with the scores of the `recent` tokens divided by `penalty` (multiplied when
/// negative, so a penalised token is always less likely), written into `out`.
fn penalise(logits: &[f32], recent: &VecDeque<i32>, penalty: f32, out: &mut Vec<f32>) {
    out.clear();
    out.extend_from_slice(logits);
    let mut seen = std::collections::HashSet::with_capacity(recent.len());
    for &t in recent {
        if !seen.insert(t) {
            continue;
        }
        if let Some(l) = usize::try_from(t).ok().and_then(|i| out.get_mut(i)) {
            *l = if *l > 0.0 { *l / penalty } else { *l * penalty };
        }
    }
}

/// The words of a schema's keys and enum values (`claim`, `confidence`, `sourced`, …),
/// lowercased: the answer says them again in every item by design, so the repetition
/// penalty of [`RepeatScope::Words`] leaves them alone (else
/// a second claim would be pushed away from `sourced`). Bounded: at most 512 words.
fn schema_words(schema: Option<&serde_json::Value>) -> Vec<String> {
    fn walk(v: &serde_json::Value, out: &mut Vec<String>, depth: usize) {
        if depth > 32 || out.len() >= 512 {
            return;
        }
        match v {
            serde_json::Value::Object(map) => {
                if let Some(props) = map.get("properties").and_then(|p| p.as_object()) {
                    out.extend(props.keys().map(|k| k.to_lowercase()));
                }
                for e in map
                    .get("enum")
                    .and_then(|e| e.as_array())
                    .into_iter()
                    .flatten()
                {
                    out.extend(e.as_str().map(str::to_lowercase));
                }
                if let Some(c) = map.get("const").and_then(|c| c.as_str()) {
                    out.push(c.to_lowercase());
                }
                for child in map.values() {
                    walk(child, out, depth + 1);
                }
            }
            serde_json::Value::Array(items) => {
                for child in items {
                    walk(child, out, depth + 1);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    if let Some(schema) = schema {
        walk(schema, &mut out, 0);
    }
    out.truncate(512);
    out.sort();
    out.dedup();
    out
}

/// Whether the repetition penalty remembers a token whose text is `piece`: every token for
/// [`RepeatScope::All`]; for
/// [`RepeatScope::Words`] only one that holds a letter or a
/// digit and is not part of one of the schema's `keywords` ([`schema_words`]), so JSON's
/// punctuation, spaces, keys and enum values are never penalised.
fn remembered(piece: &[u8], scope: RepeatScope, keywords: &[String]) -> bool {
    match scope {
        RepeatScope::All => true,
        RepeatScope::Words => {
            let core: String = String::from_utf8_lossy(piece)
                .chars()
                .filter(|c| c.is_alphanumeric())
                .flat_map(char::to_lowercase)
                .collect();
            !core.is_empty() && !keywords.iter().any(|k| k.contains(&core))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression: SmolLM2-135M's extraction of a long note's part wrote one line and then
    /// this one until the budget (4,096 tokens, 75 lines, 2 distinct). The answer now ends
    /// after the first line said again, at its end, with what follows cut.
    #[test]
    fn a_jsonl_answer_ends_at_the_first_line_said_again() {
        let first = "{\"type\": \"claim\", \"claim\": \"Compiling reads a source.\"}";
        let looped = "{\"type\": \"definition\", \"entity\": \"wikimind::llg::LgLlG::Lg\", \"definition\": \"LgLlG::LgLlG::LgLg::LgLg\"}";
        let answer = format!("{first}\n{}", format!("{looped}\n").repeat(74));
        // Fed as a model writes it, in short pieces, some holding a line's end and the
        // next line's start.
        let mut repeats = LineRepeats::default();
        let mut kept = String::new();
        let pieces: Vec<String> = answer
            .as_bytes()
            .chunks(7)
            .map(|c| String::from_utf8(c.to_vec()).unwrap())
            .collect();
        let mut ended = false;
        for piece in &pieces {
            if let Some(end) = repeats.push(piece) {
                kept.push_str(&piece[..end]);
                ended = true;
                break;
            }
            kept.push_str(piece);
        }
        assert!(ended, "the loop ran to the end of the answer");
        assert_eq!(kept, format!("{first}\n{looped}\n{looped}\n"));

        // Lines that differ, however alike, and blank lines never end an answer.
        let mut repeats = LineRepeats::default();
        for piece in [
            "{\"claim\": \"a\"}\n",
            "\n",
            "\n",
            "{\"claim\": \"a \"}",
            "\n{\"claim\": \"A\"}\n",
        ] {
            assert_eq!(repeats.push(piece), None, "{piece:?}");
        }
        // A line split across pieces is one line; the same line twice in one piece ends it.
        let mut repeats = LineRepeats::default();
        assert_eq!(repeats.push("{\"x\""), None);
        assert_eq!(repeats.push(": 1}\n{\"y\": 2}"), None);
        assert_eq!(repeats.push("\n{\"x\": 1}\n{\"z\""), Some(10));
    }

    #[test]
    fn recent_tokens_are_less_likely() {
        let logits = [2.0, -1.0, 0.5, 3.0];
        let recent: VecDeque<i32> = [0, 1, 1, 99, -5].into_iter().collect();
        let mut out = Vec::new();
        penalise(&logits, &recent, 2.0, &mut out);
        assert_eq!(out, vec![1.0, -2.0, 0.5, 3.0]);
    }

    #[test]
    fn only_the_answers_own_words_are_remembered_when_the_scope_is_words() {
        use RepeatScope::{All, Words};
        let schema = serde_json::json!({
            "type": "object",
            "properties": {
                "title": {"type": "string"},
                "key_claims": {"type": "array", "items": {
                    "type": "object",
                    "properties": {
                        "claim": {"type": "string"},
                        "confidence": {"enum": ["sourced", "inferred", "opinion"]}
                    }
                }}
            }
        });
        let keywords = schema_words(Some(&schema));
        assert_eq!(
            keywords,
            [
                "claim",
                "confidence",
                "inferred",
                "key_claims",
                "opinion",
                "sourced",
                "title"
            ]
        );
        // JSON's structure, keys and enum values: the grammar needs them in every item.
        for structure in [
            "\"",
            "\", \"",
            "{",
            "}]",
            ": ",
            " ",
            "\n",
            "",
            "sourced",
            "\"confidence",
            " claim",
            "sour",
        ] {
            assert!(
                !remembered(structure.as_bytes(), Words, &keywords),
                "{structure:?}"
            );
            assert!(
                remembered(structure.as_bytes(), All, &keywords),
                "{structure:?}"
            );
        }
        // The words of a claim said again.
        for word in ["coffee", " Coffee", "100", "\"Natural", "é", " café"] {
            assert!(remembered(word.as_bytes(), Words, &keywords), "{word:?}");
        }
        // Half a character (a token can end inside one) is not a word.
        assert!(!remembered(&"é".as_bytes()[..1], Words, &keywords));
        assert!(schema_words(None).is_empty());
        // A hostile schema, deep and wide, stays bounded.
        let mut deep = serde_json::json!({"enum": ["x"]});
        for i in 0..200 {
            deep = serde_json::json!({"properties": {format!("p{i}"): deep}});
        }
        assert!(schema_words(Some(&deep)).len() <= 512);
        let wide: serde_json::Map<String, serde_json::Value> = (0..5_000)
            .map(|i| {
                (
                    format!("p{i}"),
                    serde_json::json!({"enum": [format!("e{i}")]}),
                )
            })
            .collect();
        let wide = serde_json::json!({ "properties": wide });
        assert!(schema_words(Some(&wide)).len() <= 512);
    }
}
