//! Notes from the large-source path: what each chunk's JSONL extraction yielded, merged
//! across chunks without duplicates, each quote keeping its place in the source.

use std::collections::HashSet;

use serde::Serialize;
use serde_json::Value;

use crate::contract::Confidence;

use crate::ground::index::normalise;
use crate::tasks::parts::chunk::Chunk;

/// One note read from a chunk.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Note {
    /// A claim, with its support.
    Claim {
        /// The claim.
        text: String,
        /// How it is supported.
        confidence: Confidence,
        /// A verbatim quote, when given.
        quote: Option<String>,
        /// Which chunk it came from.
        chunk: usize,
        /// Byte offset of the quote in the source, when it was found there.
        offset: Option<usize>,
    },
    /// A definition.
    Definition {
        /// What is defined.
        entity: String,
        /// The definition.
        definition: String,
        /// Which chunk it came from.
        chunk: usize,
    },
    /// A relationship between two things.
    Relationship {
        /// The subject.
        subject: String,
        /// The relation.
        predicate: String,
        /// The object.
        object: String,
        /// Which chunk it came from.
        chunk: usize,
    },
    /// A question the text leaves open.
    Question {
        /// The question.
        text: String,
        /// Which chunk it came from.
        chunk: usize,
    },
}

impl Note {
    /// Turns one validated JSONL object into a note, locating its quote in the source.
    pub fn from_value(v: &Value, chunk: &Chunk, source: &str) -> Option<Note> {
        let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
        match v.get("type")?.as_str()? {
            "claim" => {
                let quote = s("quote").filter(|q| !q.trim().is_empty());
                let offset = quote
                    .as_deref()
                    .and_then(|q| chunk.text(source).find(q.trim()).map(|i| chunk.start + i));
                Some(Note::Claim {
                    text: s("text")?,
                    confidence: s("confidence")
                        .and_then(|c| Confidence::parse(&c))
                        .unwrap_or_default(),
                    quote,
                    chunk: chunk.index,
                    offset,
                })
            }
            "definition" => Some(Note::Definition {
                entity: s("entity")?,
                definition: s("definition")?,
                chunk: chunk.index,
            }),
            "relationship" => Some(Note::Relationship {
                subject: s("subject")?,
                predicate: s("predicate")?,
                object: s("object")?,
                chunk: chunk.index,
            }),
            "question" => Some(Note::Question {
                text: s("text")?,
                chunk: chunk.index,
            }),
            _ => None,
        }
    }

    /// What makes two notes the same (chunks overlap, so the same note is read twice).
    fn key(&self) -> String {
        match self {
            Note::Claim { text, .. } => format!("c:{}", normalise(text)),
            Note::Definition { entity, .. } => format!("d:{}", normalise(entity)),
            Note::Relationship {
                subject,
                predicate,
                object,
                ..
            } => format!(
                "r:{}|{}|{}",
                normalise(subject),
                normalise(predicate),
                normalise(object)
            ),
            Note::Question { text, .. } => format!("q:{}", normalise(text)),
        }
    }

    /// One line for the final compile prompt.
    pub fn line(&self) -> String {
        match self {
            Note::Claim {
                text,
                confidence,
                quote,
                chunk,
                ..
            } => match quote {
                Some(q) => format!(
                    "[claim, {}] {text} — quote: \"{q}\" (part {})",
                    confidence.as_str(),
                    chunk + 1
                ),
                None => format!(
                    "[claim, {}] {text} (part {})",
                    confidence.as_str(),
                    chunk + 1
                ),
            },
            Note::Definition {
                entity, definition, ..
            } => format!("[definition] {entity}: {definition}"),
            Note::Relationship {
                subject,
                predicate,
                object,
                ..
            } => format!("[relationship] {subject} — {predicate} — {object}"),
            Note::Question { text, .. } => format!("[question] {text}"),
        }
    }

    /// Whether this is a claim.
    pub fn is_claim(&self) -> bool {
        matches!(self, Note::Claim { .. })
    }
}

/// Merges per-chunk notes in chunk order, dropping duplicates (the first one is kept).
pub fn merge(per_chunk: Vec<Vec<Note>>) -> Vec<Note> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for notes in per_chunk {
        for n in notes {
            if seen.insert(n.key()) {
                out.push(n);
            }
        }
    }
    out
}

/// Renders notes for the final prompt within `budget` bytes. Returns the text and how many
/// notes did not fit (spread evenly: every part of the source keeps some of its notes).
pub fn render(notes: &[Note], budget: usize) -> (String, usize) {
    let lines: Vec<String> = notes.iter().map(Note::line).collect();
    let total: usize = lines.iter().map(|l| l.len() + 1).sum();
    if total <= budget {
        return (lines.join("\n"), 0);
    }
    // Keep every k-th line so the notes still span the whole source.
    let keep_ratio = budget as f64 / total as f64;
    let mut out = String::new();
    let mut kept = 0usize;
    for (i, line) in lines.iter().enumerate() {
        let due = ((i + 1) as f64 * keep_ratio).floor() as usize;
        if kept < due && out.len() + line.len() < budget {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(line);
            kept += 1;
        }
    }
    (out, lines.len() - kept)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn notes_locate_quotes_and_merge_without_duplicates() {
        let source = "Part one says the sky is blue. Part two says grass is green.";
        let c0 = Chunk {
            index: 0,
            start: 0,
            end: 31,
            section: None,
        };
        let c1 = Chunk {
            index: 1,
            start: 20,
            end: source.len(),
            section: None,
        };
        let a = Note::from_value(&json!({"type": "claim", "text": "The sky is blue", "confidence": "sourced", "quote": "the sky is blue"}), &c0, source).unwrap();
        let b = Note::from_value(&json!({"type": "claim", "text": "the sky is  blue", "confidence": "sourced", "quote": "the sky is blue"}), &c1, source).unwrap();
        let g = Note::from_value(&json!({"type": "claim", "text": "Grass is green", "confidence": "sourced", "quote": "grass is green"}), &c1, source).unwrap();
        match &g {
            Note::Claim { offset, chunk, .. } => {
                assert_eq!(*chunk, 1);
                assert_eq!(*offset, source.find("grass is green"));
            }
            other => panic!("{other:?}"),
        }
        let merged = merge(vec![vec![a], vec![b, g]]);
        assert_eq!(merged.len(), 2);
        assert!(merged[0].line().contains("(part 1)"));
    }

    #[test]
    fn rendering_within_a_budget_keeps_notes_from_everywhere() {
        let notes: Vec<Note> = (0..100)
            .map(|i| Note::Question {
                text: format!("question number {i:03}?"),
                chunk: i / 10,
            })
            .collect();
        let (text, omitted) = render(&notes, 1000);
        assert!(text.len() <= 1000);
        assert!(omitted > 0);
        assert!(
            text.contains("question number 00") && text.contains("question number 09"),
            "{text}"
        );
    }

    mod hostile {
        use proptest::prelude::*;
        use serde_json::json;

        use super::*;
        use crate::hostile_text;
        use crate::tasks::parts::chunk::split;

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(300))]

            /// A quote taken from a chunk of any text is located at its place in the source.
            #[test]
            fn quotes_from_any_chunk_are_located(
                text in hostile_text::text(400),
                max_bytes in 0usize..400,
                at in any::<prop::sample::Index>(),
                len in 1usize..40,
            ) {
                for chunk in split(&text, max_bytes, 50) {
                    let own = chunk.text(&text);
                    let starts: Vec<usize> = own.char_indices().map(|(i, _)| i).collect();
                    if starts.is_empty() {
                        continue;
                    }
                    let from = starts[at.index(starts.len())];
                    let quote: String = own[from..].chars().take(len).collect();
                    let value = json!({"type": "claim", "text": "t", "quote": quote});
                    let Some(Note::Claim { offset, .. }) = Note::from_value(&value, &chunk, &text)
                    else {
                        continue;
                    };
                    if let Some(offset) = offset {
                        prop_assert!(offset >= chunk.start && offset <= chunk.end);
                        prop_assert!(text[offset..].starts_with(quote.trim()));
                    } else {
                        prop_assert!(quote.trim().is_empty());
                    }
                }
            }
        }
    }
}
