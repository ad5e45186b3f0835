//! When an expected fact counts as found in an answer, pure.
//!
//! **The rule**: a fact is found when every one of its *content words* occurs as a whole
//! word somewhere in the answer — its markdown text, and each claim with its quote. Both
//! sides are compared as the wiki compares topic names ([`topic_key`]): case, whitespace,
//! punctuation and diacritics do not matter, letters and digits written together are two
//! words (`93°C` is `93` and `c`), and a regular plural is its singular (`grinders` finds
//! `grinder`). Content words are the fact's words less the stop words a question's search
//! leaves out ([`wikimind::ask::words`]: *the*, *is*, *of*…); a fact made only of stop words
//! keeps them all.
//!
//! So `"nine bars"` is found in "brewed at **Nine** bars of pressure" and in "the pressure,
//! nine bars", but not in "9 bars" (a spelled number and a numeral are different words)
//! nor in "ninety bars"; `"tea"` is not found in "steam". The words need not be next to
//! each other or in order: the rule measures whether the answer says what the fact names,
//! not that it phrases it the same way, and it cannot tell "1:16" from "1 … 16". Write
//! facts as short phrases of the words an answer must use, the way the sources write them.

use std::collections::HashSet;

use wikimind::ask::words::content_words;
use wikimind::topic::topic_key;

/// The words a fact needs, normalised (see the module documentation), each once, in order;
/// empty when the fact has no letter or digit.
pub fn fact_terms(fact: &str) -> Vec<String> {
    let mut words = content_words(fact);
    if words.is_empty() {
        words = fact
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect();
    }
    let mut terms: Vec<String> = Vec::new();
    for word in &words {
        for term in topic_key(word).split(' ').filter(|t| !t.is_empty()) {
            if !terms.iter().any(|t| t == term) {
                terms.push(term.to_owned());
            }
        }
    }
    terms
}

/// The words of an answer, normalised, for looking facts up.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AnswerWords(HashSet<String>);

impl AnswerWords {
    /// The words of every text given (the answer, its claims, their quotes).
    pub fn of<'a>(texts: impl IntoIterator<Item = &'a str>) -> AnswerWords {
        let mut words = HashSet::new();
        for text in texts {
            for w in topic_key(text).split(' ').filter(|w| !w.is_empty()) {
                words.insert(w.to_owned());
            }
        }
        AnswerWords(words)
    }

    /// Whether `fact` is found: every one of its terms is a word of the answer.
    pub fn holds(&self, fact: &str) -> bool {
        let terms = fact_terms(fact);
        !terms.is_empty() && terms.iter().all(|t| self.0.contains(t))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(fact: &str, answer: &str) -> bool {
        AnswerWords::of([answer]).holds(fact)
    }

    #[test]
    fn case_whitespace_punctuation_and_diacritics_do_not_matter() {
        assert!(found("Café au lait", "Order a CAFE   au\nlait."));
        assert!(found("nine bars", "It is brewed at Nine bars of pressure."));
        assert!(found("crème brûlée", "creme-brulee"));
        assert!(found("93 °C", "Water at 93°C."));
    }

    #[test]
    fn stop_words_are_left_out_and_plurals_are_their_singular() {
        assert!(found("the brew ratio is 1:16", "Brew ratio: 1:16."));
        assert!(found("burr grinders", "A burr grinder crushes beans."));
        assert!(found("burr grinder", "Burr grinders crush beans."));
        assert_eq!(
            fact_terms("What is it?"),
            ["what", "is", "it"],
            "stop words only"
        );
        assert!(found("it is", "It is."));
        assert!(fact_terms(" ?! ").is_empty());
    }

    #[test]
    fn every_content_word_must_be_there_as_a_whole_word() {
        assert!(!found("nine bars", "Brewed at ten bars."), "a word missing");
        assert!(
            !found("nine bars", "Brewed at 9 bars."),
            "a numeral is another word"
        );
        assert!(
            !found("tea", "Steam the milk; the team agrees."),
            "not inside a word"
        );
        assert!(!found("1:16", "From 1:15 to 1:17."), "numbers are exact");
        assert!(found("ratio 1:16", "1:16 is the ratio."), "in any order");
        assert!(!found("anything", ""), "an empty answer holds nothing");
    }

    #[test]
    fn claims_and_quotes_count_as_the_answer() {
        let words = AnswerWords::of(["See [[Espresso]].", "A shot uses 18 g", "dose of 18 g"]);
        assert!(words.holds("18 g dose"));
        assert!(words.holds("espresso"));
        assert!(!words.holds("36 g"));
    }
}
