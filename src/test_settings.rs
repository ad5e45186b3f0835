//! Settings and addresses the core's unit tests run against: a server they start, or an
//! address where nothing listens.

use crate::config::{Overrides, Settings};

/// Settings with one provider, the default protocol at `base_url`, and no transport
/// retries (a server that is down is said at once).
pub fn settings_at(base_url: &str) -> Settings {
    let overrides = Overrides {
        base_url: Some(base_url.to_string()),
        data_dir: Some("unused-by-unit-tests".into()),
        ..Overrides::default()
    };
    let mut settings = Settings::resolve(&overrides, &|_| None, None).expect("settings");
    settings.compile.transport_retries = 0;
    settings
}

/// A base URL where nothing listens.
pub fn closed_port() -> String {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    format!("http://127.0.0.1:{}", l.local_addr().expect("addr").port())
}
