//! When two page titles name one concept though their keys differ: the same words in
//! another order, a common stem, an acronym beside its expansion. Pure rules over titles
//! and their page keys; the `duplicate` check pairs pages with them.

/// Why two titles look like one topic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Likeness {
    /// One page answers to a name (alias, former title, or an alias its note declares)
    /// that is the other's title or name.
    SharedName,
    /// The same words in another order (`Coffee Roasting`, `Roasting Coffee`).
    WordOrder,
    /// The same words up to their endings (`Compiler Optimization`, `Compiler Optimizing`).
    CommonStem,
    /// An acronym beside its expansion (`LLM`, `Large Language Model`).
    Acronym,
}

impl Likeness {
    /// How the reason reads for a person.
    pub fn describe(self) -> &'static str {
        match self {
            Likeness::SharedName => "they share a name",
            Likeness::WordOrder => "the same words in another order",
            Likeness::CommonStem => "the same words up to their endings",
            Likeness::Acronym => "an acronym beside its expansion",
        }
    }
}

/// Endings cut to find a word's stem, longest first.
const ENDINGS: &[&str] = &[
    "izations", "isations", "ization", "isation", "ations", "itions", "nesses", "ation", "ition",
    "ments", "izing", "ising", "ment", "ness", "ings", "ions", "izes", "ises", "ized", "ised",
    "izer", "iser", "ing", "ion", "ers", "ize", "ise", "er", "ed", "es", "e", "s",
];

/// A stem keeps at least this many characters.
const MIN_STEM: usize = 4;

/// Words an acronym skips (`DoS` is `Denial of Service`).
const SMALL_WORDS: &[&str] = &["of", "and", "the", "for", "in", "on", "a", "an", "to", "&"];

/// The words of a page key, sorted: two keys with the same sorted words and more than one
/// word are the same words in another order.
pub fn sorted_words(key: &str) -> Option<String> {
    let mut words: Vec<&str> = key.split_whitespace().collect();
    if words.len() < 2 {
        return None;
    }
    words.sort_unstable();
    Some(words.join(" "))
}

/// The key with each word cut to its stem (words holding a digit are kept whole, so
/// `Model 2` and `Model 3` never meet).
pub fn stemmed(key: &str) -> String {
    key.split_whitespace()
        .map(stem)
        .collect::<Vec<_>>()
        .join(" ")
}

fn stem(word: &str) -> &str {
    if word.chars().any(|c| c.is_ascii_digit()) {
        return word;
    }
    for ending in ENDINGS {
        if let Some(stem) = word.strip_suffix(ending) {
            if stem.chars().count() >= MIN_STEM {
                return stem;
            }
        }
    }
    word
}

/// The acronym a title is, when it is one word of 2 to 6 letters with at least two
/// capitals (`LLM`, `RAG`, `DoS`): its capitals (a small letter stands for a small word,
/// as the `o` of `DoS` for `of`).
pub fn acronym(title: &str) -> Option<String> {
    let title = title.trim();
    let letters = title.chars().count();
    let capitals: String = title.chars().filter(|c| c.is_uppercase()).collect();
    ((2..=6).contains(&letters)
        && title.chars().all(|c| c.is_alphabetic())
        && capitals.chars().count() >= 2)
        .then_some(capitals)
}

/// The initials of a title of two words or more (small words skipped), upper-cased: what
/// its acronym would be.
pub fn initials(title: &str) -> Option<String> {
    let words: Vec<&str> = title
        .split(|c: char| c.is_whitespace() || c == '-')
        .filter(|w| !w.is_empty())
        .filter(|w| !SMALL_WORDS.contains(&w.to_lowercase().as_str()))
        .collect();
    if words.len() < 2 {
        return None;
    }
    let initials: String = words
        .iter()
        .filter_map(|w| w.chars().next())
        .flat_map(char::to_uppercase)
        .collect();
    initials
        .chars()
        .all(char::is_alphabetic)
        .then_some(initials)
}

#[cfg(test)]
mod tests {
    use super::*;
    use wikimind_text::key::page_key;

    #[test]
    fn tells_titles_of_one_topic() {
        // (a, b, same words in another order, same stems, acronym of the other)
        let cases: &[(&str, &str, bool, bool, bool)] = &[
            ("Coffee Roasting", "Roasting Coffee", true, false, false),
            (
                "Compiler Optimization",
                "Compiler Optimizing",
                false,
                true,
                false,
            ),
            ("LLM", "Large Language Model", false, false, true),
            ("DoS", "Denial of Service", false, false, true),
            ("Model 2", "Model 3", false, false, false),
            ("Tea", "Coffee", false, false, false),
            ("Rust", "Rusting", false, true, false),
            ("RAG", "Retrieval Augmented Generation", false, false, true),
            ("Cat", "Catalan Translation", false, false, false),
        ];
        for &(a, b, order, stems, acro) in cases {
            let (ka, kb) = (page_key(a), page_key(b));
            assert_eq!(
                sorted_words(&ka).is_some() && sorted_words(&ka) == sorted_words(&kb),
                order,
                "{a} / {b}: word order"
            );
            assert_eq!(stemmed(&ka) == stemmed(&kb), stems, "{a} / {b}: stems");
            assert_eq!(
                acronym(a).is_some() && acronym(a) == initials(b),
                acro,
                "{a} / {b}: acronym"
            );
        }
    }
}
