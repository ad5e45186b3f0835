//! Decoding pieces of the built-in engine that do not touch the model: the grammar over
//! the answer ([`Constraint`]), JSONL grammars, seeded temperature/top-k/top-p sampling
//! ([`Sampler`]) and turning token bytes into whole characters ([`take_utf8`]).

use llama_cpp_2::sampling::LlamaSampler;
use llama_cpp_2::token::data::LlamaTokenData;
use llama_cpp_2::token::data_array::LlamaTokenDataArray;
use llama_cpp_2::token::LlamaToken;
use llguidance::Matcher;
use serde_json::Value;

/// Sampling: the candidates kept by top-k and the probability mass kept by top-p.
const TOP_K: usize = 40;
const TOP_P: f32 = 0.95;

/// The answer budget one JSONL line's strings are bounded for.
pub(super) const LINE_BUDGET: u32 = 384;

/// An llguidance (Lark) grammar for JSONL: one or more lines of one object of `schema` each. The
/// schema's whitespace pattern (from [`bound_schema`]) has no newline, so an object stays
/// on its line.
pub(super) fn jsonl_lark(schema: &Value) -> String {
    format!("start: line+\nline: object \"\\n\"\nobject: %json {schema}\n")
}

/// A GBNF grammar for JSONL from llama.cpp's grammar for one object (`root`): the start
/// rule `jsonl` is one or more `root` lines, and whitespace inside an object may not
/// break the line.
pub(super) fn jsonl_gbnf(object_grammar: &str) -> String {
    let mut out = String::with_capacity(object_grammar.len() + 64);
    for line in object_grammar.lines() {
        if line.trim_start().starts_with("space ::=") {
            out.push_str("space ::= \" \"?\n");
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    out.push_str("jsonl ::= (root \"\\n\")+\n");
    out
}

/// Takes the longest valid UTF-8 prefix out of `pending` (invalid bytes become U+FFFD; an
/// incomplete character at the end waits for the next token).
pub(super) fn take_utf8(pending: &mut Vec<u8>) -> String {
    match std::str::from_utf8(pending) {
        Ok(s) => {
            let out = s.to_string();
            pending.clear();
            out
        }
        Err(e) if e.error_len().is_none() => {
            let valid = e.valid_up_to();
            let out = String::from_utf8_lossy(&pending[..valid]).into_owned();
            pending.drain(..valid);
            out
        }
        Err(_) => {
            let out = String::from_utf8_lossy(pending).into_owned();
            pending.clear();
            out
        }
    }
}

/// A grammar over the answer.
pub(super) enum Constraint {
    Llg(Box<Matcher>),
    Gbnf(LlamaSampler),
}

/// The most characters of the grammar engine's own words a failure message quotes.
const MAX_FAILURE_CHARS: usize = 300;

/// The grammar engine failed (llguidance, or llama.cpp's grammar sampler): which, and its
/// own words. A failed llguidance matcher stays failed, so the answer cannot go on under its
/// grammar; a mask allowing nothing instead would hide why the request ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct GrammarFailure {
    engine: &'static str,
    message: String,
}

impl GrammarFailure {
    fn llguidance(m: &Matcher, e: impl std::fmt::Display) -> GrammarFailure {
        // The matcher keeps its first error; `e` may only repeat it. Its first line says
        // what failed; the lines after dump the parser's state and grammar (a grounded
        // grammar holds the source's text), too much for a message.
        let full = m.get_error().unwrap_or_else(|| e.to_string());
        let first = full.lines().next().unwrap_or_default().trim();
        let mut message: String = first.chars().take(MAX_FAILURE_CHARS).collect();
        if message.len() < first.len() {
            message.push('…');
        }
        if message.is_empty() {
            message = "no reason given".into();
        }
        GrammarFailure {
            engine: "llguidance",
            message,
        }
    }

    /// The message for a request that had `produced` answer tokens when the grammar failed.
    pub(super) fn after(&self, produced: usize) -> String {
        format!(
            "the grammar engine ({}) failed after {produced} answer tokens, so the answer was stopped there: {}",
            self.engine, self.message
        )
    }
}

impl Constraint {
    /// Whether `token` (an end-of-generation token when `eog`) may come next.
    pub(super) fn allows(&mut self, token: i32, eog: bool) -> Result<bool, GrammarFailure> {
        match self {
            Constraint::Llg(m) => {
                let result = if eog {
                    m.is_accepting()
                } else {
                    m.validate_tokens(&[token as u32]).map(|n| n == 1)
                };
                result.map_err(|e| GrammarFailure::llguidance(m, e))
            }
            Constraint::Gbnf(g) => {
                let mut one = LlamaTokenDataArray::new(
                    vec![LlamaTokenData::new(LlamaToken(token), 0.0, 0.0)],
                    false,
                );
                one.apply_sampler(g);
                Ok(one.data.first().is_some_and(|d| d.logit().is_finite()))
            }
        }
    }

    /// Which tokens may come next, indexed by token id (`is_eog` tells the end-of-generation
    /// tokens, allowed when the grammar may end here).
    pub(super) fn mask(
        &mut self,
        logits: &[f32],
        is_eog: &dyn Fn(i32) -> bool,
    ) -> Result<Vec<bool>, GrammarFailure> {
        match self {
            Constraint::Llg(m) => {
                let accepting = m
                    .is_accepting()
                    .map_err(|e| GrammarFailure::llguidance(m, e))?;
                let mask = m
                    .compute_mask()
                    .map_err(|e| GrammarFailure::llguidance(m, e))?;
                Ok((0..logits.len())
                    .map(|i| mask.is_allowed(i as u32) || (accepting && is_eog(i as i32)))
                    .collect())
            }
            Constraint::Gbnf(g) => {
                let mut all = LlamaTokenDataArray::new(
                    logits
                        .iter()
                        .enumerate()
                        .map(|(i, &l)| LlamaTokenData::new(LlamaToken(i as i32), l, 0.0))
                        .collect(),
                    false,
                );
                all.apply_sampler(g);
                let mut allowed = vec![false; logits.len()];
                for d in &all.data {
                    if d.logit().is_finite() {
                        if let Some(slot) = allowed.get_mut(d.id().0 as usize) {
                            *slot = true;
                        }
                    }
                }
                Ok(allowed)
            }
        }
    }

    /// Moves the grammar past `token`.
    pub(super) fn accept(&mut self, token: LlamaToken) -> Result<(), GrammarFailure> {
        match self {
            Constraint::Llg(m) => m
                .consume_token(token.0 as u32)
                .map_err(|e| GrammarFailure::llguidance(m, e)),
            Constraint::Gbnf(g) => g.try_accept(token).map_err(|e| GrammarFailure {
                engine: "llama.cpp's GBNF grammar",
                message: format!("taking token {}: {e}", token.0),
            }),
        }
    }

    /// Takes back the answer's last `back` tokens and writes `instead` (bytes) in their
    /// place, when the grammar allows it: the tokens that write `instead`, and the
    /// grammar moved past them. `None`, with the grammar as it was, when it does not allow
    /// it (an array that may not close yet, say) or cannot take tokens back (GBNF).
    pub(super) fn rewrite(&mut self, back: usize, instead: &[u8]) -> Option<Vec<i32>> {
        let Constraint::Llg(m) = self else {
            return None;
        };
        // On a copy: a matcher that fails stays failed, and this one must go on.
        let mut trial = m.clone();
        trial.rollback(back).ok()?;
        let tokens = trial.tok_env().ok()?.tok_trie().greedy_tokenize(instead);
        if tokens.is_empty() || trial.validate_tokens(&tokens).ok()? != tokens.len() {
            return None;
        }
        trial.consume_tokens(&tokens).ok()?;
        *m = trial;
        Some(tokens.into_iter().map(|t| t as i32).collect())
    }

    /// Whether the grammar is complete and allows nothing more. A failed matcher is not
    /// complete (llguidance counts it as stopped): its failure is the error.
    pub(super) fn finished(&self) -> Result<bool, GrammarFailure> {
        match self {
            Constraint::Llg(m) => match m.get_error() {
                Some(e) => Err(GrammarFailure::llguidance(m, e)),
                None => Ok(m.is_stopped()),
            },
            Constraint::Gbnf(_) => Ok(false),
        }
    }
}

/// The answer's next token: drawn from `logits`; when `constraint` refuses it, drawn again
/// among the tokens it allows (sample-then-check). With it, whether it was drawn again.
/// The error says why there is no next token, `produced` (answer tokens so far) included.
pub(super) fn next_token(
    sampler: &mut Sampler,
    logits: &[f32],
    constraint: Option<&mut Constraint>,
    is_eog: &dyn Fn(i32) -> bool,
    produced: usize,
) -> Result<(i32, bool), String> {
    let Some(first) = sampler.pick(logits, |_| true) else {
        return Err(format!(
            "the model produced no usable scores (after {produced} answer tokens)"
        ));
    };
    let Some(c) = constraint else {
        return Ok((first, false));
    };
    let fail = |e: GrammarFailure| e.after(produced);
    if c.allows(first, is_eog(first)).map_err(fail)? {
        return Ok((first, false));
    }
    let allowed = c.mask(logits, is_eog).map_err(fail)?;
    match sampler.pick(logits, |i| allowed.get(i).copied().unwrap_or(false)) {
        Some(t) => Ok((t, true)),
        None => Err(format!(
            "the schema's grammar allows no next token (a dead end, after {produced} answer tokens)"
        )),
    }
}

/// Temperature, top-k and top-p sampling from a seeded generator.
pub(super) struct Sampler {
    state: u64,
    temperature: f32,
    candidates: Vec<(f32, i32)>,
}

impl Sampler {
    pub(super) fn new(seed: u64, temperature: f32) -> Sampler {
        Sampler {
            state: seed ^ 0x9E37_79B9_7F4A_7C15,
            temperature,
            candidates: Vec::with_capacity(64 * 1024),
        }
    }

    /// SplitMix64, as a float in [0, 1).
    fn next_f32(&mut self) -> f32 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 40) as f32 / (1u64 << 24) as f32
    }

    /// Draws a token among those `allowed` (by id); `None` when none is.
    pub(super) fn pick(&mut self, logits: &[f32], allowed: impl Fn(usize) -> bool) -> Option<i32> {
        self.candidates.clear();
        for (i, &l) in logits.iter().enumerate() {
            if l.is_finite() && allowed(i) {
                self.candidates.push((l, i as i32));
            }
        }
        if self.candidates.is_empty() {
            return None;
        }
        let by_logit = |a: &(f32, i32), b: &(f32, i32)| b.0.total_cmp(&a.0);
        if self.temperature <= 0.0 {
            return self
                .candidates
                .iter()
                .min_by(|a, b| by_logit(a, b))
                .map(|c| c.1);
        }
        let k = TOP_K.min(self.candidates.len());
        if self.candidates.len() > k {
            self.candidates.select_nth_unstable_by(k - 1, by_logit);
            self.candidates.truncate(k);
        }
        self.candidates.sort_by(by_logit);
        let max = self.candidates[0].0;
        let mut weights: Vec<f32> = self
            .candidates
            .iter()
            .map(|c| ((c.0 - max) / self.temperature).exp())
            .collect();
        let total: f32 = weights.iter().sum();
        let mut kept = 0.0;
        let mut cut = weights.len();
        for (i, w) in weights.iter().enumerate() {
            kept += w / total;
            if kept >= TOP_P {
                cut = i + 1;
                break;
            }
        }
        weights.truncate(cut);
        let total: f32 = weights.iter().sum();
        let mut target = self.next_f32() * total;
        for (i, w) in weights.iter().enumerate() {
            if target < *w {
                return Some(self.candidates[i].1);
            }
            target -= w;
        }
        Some(self.candidates[weights.len() - 1].1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_pieces_wait_for_whole_characters() {
        let mut pending = "é".as_bytes()[..1].to_vec();
        assert_eq!(take_utf8(&mut pending), "");
        pending.extend(&"é".as_bytes()[1..]);
        pending.extend(b"x");
        assert_eq!(take_utf8(&mut pending), "éx");
        assert!(pending.is_empty());
        let mut bad = vec![0xff, b'a'];
        assert_eq!(take_utf8(&mut bad), "\u{fffd}a");
    }

    /// A matcher over a one-byte-per-token vocabulary (token id = byte, end = 261) whose
    /// lexer may do `fuel` units of work per mask.
    fn matcher(lark: &str, fuel: u64) -> Matcher {
        let env = toktrie::ApproximateTokEnv::single_byte_env();
        let mut factory = llguidance::ParserFactory::new_simple(&env).unwrap();
        factory.quiet();
        factory.limits_mut().step_lexer_fuel = fuel;
        let parser = factory
            .create_parser(llguidance::api::TopLevelGrammar::from_lark(lark.into()))
            .unwrap();
        let m = Matcher::new(Ok(parser));
        assert_eq!(m.get_error(), None);
        m
    }

    /// Regression: when llguidance failed computing a mask, the mask allowed nothing and the
    /// request ended as "a dead end" of the schema, or — had the sampler taken any token —
    /// went on unconstrained. Now the request ends saying the grammar engine failed, after
    /// how many tokens, in llguidance's own words, and the failed grammar never counts as
    /// finished.
    #[test]
    fn a_grammar_engine_failure_ends_the_answer_saying_so() {
        // A lexeme whose automaton has thousands of states: no mask fits in 1 unit of fuel.
        let lark = "start: /[a-z]*a[a-z]{14}/\n";
        let is_eog = |t: i32| t == 261;
        // The model wants `!`, which the grammar refuses: the whole mask is needed.
        let mut logits = vec![0.0f32; 262];
        logits[usize::from(b'!')] = 9.0;
        logits[usize::from(b'a')] = 1.0;
        let mut c = Constraint::Llg(Box::new(matcher(lark, 1)));
        for &b in b"ab" {
            c.accept(LlamaToken(i32::from(b))).unwrap();
        }
        let err =
            next_token(&mut Sampler::new(1, 0.0), &logits, Some(&mut c), &is_eog, 2).unwrap_err();
        assert_eq!(
            err,
            "the grammar engine (llguidance) failed after 2 answer tokens, so the answer was stopped there: lexer error: too many expressions constructed"
        );
        // Failed for good: nothing may follow, and it is not a finished answer.
        assert!(c.finished().is_err());
        assert!(c.allows(i32::from(b'a'), false).is_err());
        assert!(c.accept(LlamaToken(i32::from(b'a'))).is_err());

        // With its usual fuel the same grammar masks, and the refused `!` is drawn again.
        let mut c = Constraint::Llg(Box::new(matcher(lark, 2_000_000)));
        let (token, again) =
            next_token(&mut Sampler::new(1, 0.0), &logits, Some(&mut c), &is_eog, 0).unwrap();
        assert_eq!((token, again), (i32::from(b'a'), true));
        assert_eq!(c.finished(), Ok(false));
    }

    #[test]
    fn sampling_is_seeded_and_respects_the_mask() {
        let logits: Vec<f32> = (0..100).map(|i| (i % 7) as f32).collect();
        let draw = |seed| {
            let mut s = Sampler::new(seed, 0.8);
            (0..20)
                .map(|_| s.pick(&logits, |_| true).unwrap())
                .collect::<Vec<_>>()
        };
        assert_eq!(draw(1), draw(1));
        assert_ne!(draw(1), draw(2));
        let mut s = Sampler::new(3, 0.8);
        for _ in 0..50 {
            let t = s.pick(&logits, |i| i % 10 == 3).unwrap();
            assert_eq!(t % 10, 3);
        }
        assert_eq!(s.pick(&logits, |_| false), None);
        let mut greedy = Sampler::new(3, 0.0);
        assert_eq!(
            logits[greedy.pick(&logits, |_| true).unwrap() as usize],
            6.0
        );
        let with_nan = [f32::NAN, 1.0, f32::NEG_INFINITY];
        assert_eq!(Sampler::new(1, 1.0).pick(&with_nan, |_| true), Some(1));
    }
}
