//! What model calls cost: how many were made and the tokens the servers reported. One value
//! type, added up wherever calls are counted (a compile, a page job, an answer, the parts of
//! a large source), so a sum is never written field by field.

use std::iter::Sum;
use std::ops::{Add, AddAssign};

use serde::Serialize;

/// Calls made to models and the tokens their servers reported. Serialised as its three
/// fields (`calls`, `tokens_in`, `tokens_out`), flattened into the report that holds it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Usage {
    /// Calls made (a call that failed counts).
    pub calls: u32,
    /// Prompt tokens, where the server reported them (0 where it did not).
    pub tokens_in: u64,
    /// Answer tokens, where the server reported them (0 where it did not).
    pub tokens_out: u64,
}

impl Usage {
    /// One call, with the tokens its server reported (`None`: not reported, counted as 0).
    pub fn call(tokens_in: Option<u64>, tokens_out: Option<u64>) -> Usage {
        Usage {
            calls: 1,
            tokens_in: tokens_in.unwrap_or(0),
            tokens_out: tokens_out.unwrap_or(0),
        }
    }

    /// The tokens a server reported for a call already counted (no call added).
    pub fn tokens(tokens_in: Option<u64>, tokens_out: Option<u64>) -> Usage {
        Usage {
            calls: 0,
            ..Usage::call(tokens_in, tokens_out)
        }
    }
}

impl AddAssign for Usage {
    fn add_assign(&mut self, other: Usage) {
        self.calls = self.calls.saturating_add(other.calls);
        self.tokens_in = self.tokens_in.saturating_add(other.tokens_in);
        self.tokens_out = self.tokens_out.saturating_add(other.tokens_out);
    }
}

impl Add for Usage {
    type Output = Usage;

    fn add(mut self, other: Usage) -> Usage {
        self += other;
        self
    }
}

impl Sum for Usage {
    fn sum<I: Iterator<Item = Usage>>(iter: I) -> Usage {
        iter.fold(Usage::default(), Add::add)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_adds_up_field_by_field_and_never_overflows() {
        let calls = [
            Usage::call(Some(10), Some(4)),
            Usage::call(None, Some(2)),
            Usage::tokens(Some(5), None),
        ];
        assert_eq!(
            calls.into_iter().sum::<Usage>(),
            Usage {
                calls: 2,
                tokens_in: 15,
                tokens_out: 6
            }
        );
        let mut big = Usage::call(Some(u64::MAX), Some(1));
        big += Usage::call(Some(1), Some(1));
        assert_eq!((big.calls, big.tokens_in, big.tokens_out), (2, u64::MAX, 2));
        let json = serde_json::to_value(Usage::call(Some(3), None)).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"calls": 1, "tokens_in": 3, "tokens_out": 0})
        );
    }
}
