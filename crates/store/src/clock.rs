//! The store's clock: every timestamp the store writes is read from it, through the SQL
//! function `wm_now()` it registers on its connection (seconds since the Unix epoch, to
//! the millisecond). The system clock in use; a test moves a [`ManualClock`] instead of
//! sleeping.

use std::fmt;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rusqlite::functions::FunctionFlags;
use rusqlite::Connection;

/// Where the store reads the time.
pub trait Clock: Send + Sync + fmt::Debug {
    /// Milliseconds since the Unix epoch.
    fn now_ms(&self) -> i64;
}

/// The system's clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_ms(&self) -> i64 {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
    }
}

/// A clock that stands still until it is moved: for tests of what happens as time passes.
#[derive(Debug)]
pub struct ManualClock {
    ms: AtomicI64,
}

impl ManualClock {
    /// A clock showing the system's time now, from then on moved only by [`Self::advance`].
    pub fn starting_now() -> Arc<ManualClock> {
        Arc::new(ManualClock {
            ms: AtomicI64::new(SystemClock.now_ms()),
        })
    }

    /// Moves the clock forward by `by`.
    pub fn advance(&self, by: Duration) {
        let ms = i64::try_from(by.as_millis()).unwrap_or(i64::MAX);
        self.ms.fetch_add(ms, Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now_ms(&self) -> i64 {
        self.ms.load(Ordering::SeqCst)
    }
}

/// Registers `wm_now()` on `conn`, reading `clock` (a second registration replaces the
/// first).
pub(crate) fn register(conn: &Connection, clock: Arc<dyn Clock>) -> rusqlite::Result<()> {
    conn.create_scalar_function("wm_now", 0, FunctionFlags::SQLITE_UTF8, move |_| {
        Ok(clock.now_ms() as f64 / 1000.0)
    })
}

/// The SQL expression of the store's time now, in the format of every timestamp column.
macro_rules! now_sql {
    () => {
        "strftime('%Y-%m-%dT%H:%M:%fZ', wm_now(), 'unixepoch')"
    };
}
pub(crate) use now_sql;

/// The SQL time `seconds` ago, in the format of every timestamp column.
pub(crate) fn ago(seconds: u64) -> String {
    format!("strftime('%Y-%m-%dT%H:%M:%fZ', wm_now(), 'unixepoch', '-{seconds} seconds')")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sql_time_is_the_clocks_to_the_millisecond() {
        let conn = Connection::open_in_memory().unwrap();
        let clock = ManualClock::starting_now();
        clock.ms.store(1_764_064_800_123, Ordering::SeqCst);
        register(&conn, clock.clone()).unwrap();
        let now = || -> String {
            conn.query_row(concat!("SELECT ", now_sql!()), [], |r| r.get(0))
                .unwrap()
        };
        assert_eq!(now(), "2025-11-25T10:00:00.123Z");
        clock.advance(Duration::from_millis(61_001));
        assert_eq!(now(), "2025-11-25T10:01:01.124Z");
    }
}
