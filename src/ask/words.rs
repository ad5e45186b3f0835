//! The words of a question that are worth searching for: its *content words*, the stop
//! words (articles, pronouns, auxiliaries, question words, common prepositions) left out.

use std::collections::HashSet;

use crate::store::{QueryTerm, MAX_QUERY_TERMS};
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
/// word either (`C`, `R` are topics), and none longer than [`MAX_WORD_BYTES`]. At most
/// [`MAX_QUERY_TERMS`]: the question is read
/// only as far as it takes to find them, so a long question costs no more than a short
/// one.
pub fn content_words(question: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    for word in question.split(|c: char| !c.is_alphanumeric()) {
        if words.len() >= MAX_QUERY_TERMS {
            break;
        }
        if word.is_empty() || word.len() > MAX_WORD_BYTES {
            continue;
        }
        let lower = word.to_lowercase();
        if is_stop_word(&lower) || !seen.insert(lower.clone()) {
            continue;
        }
        words.push(lower);
    }
    words
}

/// The longest word searched for, in bytes: a run of letters longer than this (a pasted
/// hash, a megabyte without a space) is no word of any page.
pub const MAX_WORD_BYTES: usize = 100;

/// The longest name, in words, a question is searched for.
const MAX_NAME_WORDS: usize = 5;

/// How many words at the start of a question are looked at for the names of pages: every
/// run of them is one lookup, so a pasted book is not looked up run by run.
pub const NAME_SCAN_WORDS: usize = 100;

/// The page keys of every run of one to five consecutive words of `question` that holds
/// a content word, longest runs first (then in order): the names a question may give a
/// page by. `How does a burr grinder work` gives `burr grinder work`, …, `burr grinder`,
/// `grinder work`, …, `burr`, `grinder`, `work`. Only the first [`NAME_SCAN_WORDS`] words
/// are looked at.
pub fn name_keys(question: &str) -> Vec<String> {
    let words: Vec<&str> = question
        .split(|c: char| !(c.is_alphanumeric() || c == '+' || c == '#' || c == '\'' || c == '-'))
        .filter(|w| w.chars().any(char::is_alphanumeric) && w.len() <= MAX_WORD_BYTES)
        .take(NAME_SCAN_WORDS)
        .collect();
    let mut keys: Vec<String> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    for n in (1..=MAX_NAME_WORDS.min(words.len())).rev() {
        for run in words.windows(n) {
            if !run.iter().any(|w| !is_stop_word(&w.to_lowercase())) {
                continue;
            }
            let key = crate::store::page_key(&run.join(" "));
            if !key.is_empty() && seen.insert(key.clone()) {
                keys.push(key);
            }
        }
    }
    keys
}

/// The fewest letters a word's stem needs before longer words starting with it are
/// searched too (`grind` finds `grinder`; `tea` does not find `team`).
const MIN_PREFIX: usize = 4;

/// What to search for each content word: its singular (a regular plural's `s` dropped,
/// as topic names are compared), as a prefix when long enough, so `grinders` finds
/// `grinder` and `grinders`.
pub fn query_terms(words: &[String]) -> Vec<QueryTerm> {
    let mut terms: Vec<QueryTerm> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    for word in words {
        if terms.len() >= MAX_QUERY_TERMS {
            break;
        }
        let stem = topic_key(word);
        let stem = if stem.is_empty() || stem.contains(' ') {
            word.clone()
        } else {
            stem
        };
        let prefix = stem.chars().count() >= MIN_PREFIX;
        if !seen.insert(stem.clone()) {
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
    fn names_are_runs_of_words_with_a_content_word_longest_first() {
        let keys = name_keys("How does a burr grinder work?");
        assert_eq!(keys[0], crate::store::page_key("How does a burr grinder"));
        let burr = keys.iter().position(|k| k == "burr grinder").unwrap();
        let grinder = keys.iter().position(|k| k == "grinder").unwrap();
        assert!(burr < grinder);
        assert!(!keys.contains(&"how does a".to_string()), "stop words only");
        assert!(name_keys("What is it?").is_empty());
        assert_eq!(name_keys("C++?"), ["c++"]);
    }

    /// Regression: a 1 MB question took minutes: `Vec::contains` made de-duplication
    /// quadratic, and every word (and every run of up to five) was searched for.
    #[test]
    fn a_long_question_is_searched_for_its_first_words_only() {
        let long: String = (0..200_000).map(|i| format!("word{i} ")).collect();
        let words = content_words(&long);
        assert_eq!(words.len(), MAX_QUERY_TERMS);
        assert_eq!(words[0], "word0");
        assert_eq!(query_terms(&words).len(), MAX_QUERY_TERMS);
        let keys = name_keys(&long);
        assert!(
            keys.len() <= NAME_SCAN_WORDS * MAX_NAME_WORDS,
            "{}",
            keys.len()
        );
        let key = |w: &str| crate::store::page_key(w);
        assert!(keys.contains(&key("word99")), "{:?}", &keys[..3]);
        assert!(!keys.contains(&key("word100")));
        // The same word over and over is one word.
        assert_eq!(content_words(&"crema ".repeat(200_000)), ["crema"]);
        // A megabyte without a space is no word.
        let blob = format!("crema {}", "x".repeat(1_000_000));
        assert_eq!(content_words(&blob), ["crema"]);
        assert_eq!(name_keys(&blob), [crate::store::page_key("crema")]);
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
