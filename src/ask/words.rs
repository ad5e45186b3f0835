//! The words of a question that are worth searching for: its *content words*, the stop
//! words (articles, pronouns, auxiliaries, question words, common prepositions) left out.

use crate::store::QueryTerm;
use crate::topic::topic_key;

/// English words that say nothing about what a question is about. Compared lowercase.
const STOP_WORDS: &[&str] = &[
    "a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and", "any",
    "are", "as", "at", "be", "because", "been", "before", "being", "below", "between", "both",
    "but", "by", "can", "could", "did", "do", "does", "doing", "done", "down", "during", "each",
    "else", "ever", "every", "explain", "few", "for", "from", "further", "get", "gets", "give",
    "had", "has", "have", "having", "he", "her", "here", "hers", "him", "his", "how", "i", "if",
    "in", "into", "is", "it", "its", "itself", "just", "know", "let", "like", "many", "may", "me",
    "mean", "means", "might", "more", "most", "much", "must", "my", "no", "nor", "not", "of",
    "off", "on", "once", "only", "or", "other", "our", "out", "over", "own", "please", "same",
    "say", "says", "she", "should", "so", "some", "such", "tell", "than", "that", "the", "their",
    "them", "then", "there", "these", "they", "thing", "things", "this", "those", "through", "to",
    "too", "under", "until", "up", "us", "use", "used", "very", "was", "way", "we", "were", "what",
    "when", "where", "whether", "which", "while", "who", "whom", "whose", "why", "will", "with",
    "would", "you", "your",
];

/// Whether `word` (lowercase) is a stop word.
fn is_stop_word(word: &str) -> bool {
    STOP_WORDS.binary_search(&word).is_ok()
}

/// The content words of `question`, lowercase, in order, each once: runs of letters and
/// digits that are not stop words. A single letter counts only when it is not a stop
/// word either (`C`, `R` are topics).
pub fn content_words(question: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    for word in question.split(|c: char| !c.is_alphanumeric()) {
        if word.is_empty() {
            continue;
        }
        let lower = word.to_lowercase();
        if is_stop_word(&lower) || words.contains(&lower) {
            continue;
        }
        words.push(lower);
    }
    words
}

/// The fewest letters a word's stem needs before longer words starting with it are
/// searched too (`grind` finds `grinder`; `tea` does not find `team`).
const MIN_PREFIX: usize = 4;

/// What to search for each content word: its singular (a regular plural's `s` dropped,
/// as topic names are compared), as a prefix when long enough, so `grinders` finds
/// `grinder` and `grinders`.
pub fn query_terms(words: &[String]) -> Vec<QueryTerm> {
    let mut terms: Vec<QueryTerm> = Vec::new();
    for word in words {
        let stem = topic_key(word);
        let stem = if stem.is_empty() || stem.contains(' ') {
            word.clone()
        } else {
            stem
        };
        let prefix = stem.chars().count() >= MIN_PREFIX;
        if terms.iter().any(|t| t.word == stem) {
            continue;
        }
        terms.push(QueryTerm { word: stem, prefix });
    }
    terms
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_words_are_sorted_for_the_binary_search() {
        let mut sorted = STOP_WORDS.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted, STOP_WORDS);
    }

    #[test]
    fn a_question_keeps_only_its_content_words() {
        assert_eq!(
            content_words("What is the ideal brew ratio for a pour-over? What RATIO?"),
            ["ideal", "brew", "ratio", "pour"]
        );
        assert!(content_words("What is it? How does it do that?").is_empty());
        assert!(content_words("¿?!…").is_empty());
        assert_eq!(content_words("Is C faster than R?"), ["c", "faster", "r"]);
    }

    #[test]
    fn plurals_search_their_singular_as_a_prefix() {
        let terms = query_terms(&["grinders".into(), "tea".into(), "grinder".into()]);
        assert_eq!(
            terms,
            [
                QueryTerm {
                    word: "grinder".into(),
                    prefix: true
                },
                QueryTerm {
                    word: "tea".into(),
                    prefix: false
                },
            ]
        );
    }
}
