//! Frozen copies of the rules released migrations applied (see [`v13`]).

pub(crate) mod v13;
pub(crate) mod v6;
