//! Grounding: whether a quote is in a text ([`index`]), where it sits ([`locate`]), what each
//! call's quotes may be drawn from ([`grounds`]), and the readable text they are all read
//! in ([`readable()`]).

pub mod grounds;
pub mod index;
pub mod locate;
pub mod readable;

pub use index::*;
pub use locate::locate_quote;
pub use readable::{readable, readable_source};
