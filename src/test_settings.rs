//! Settings and addresses the core's unit tests run against: a server they start, or an
//! address where nothing listens.

use wikimind_testserver::{canned, Reply, TestServer};

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
    format!("http://127.0.0.1:{}", wikimind_testserver::closed_port())
}

/// A server that compiles sources as the canned answer does and answers every page prompt
/// ([`canned::is_page_prompt`]) with prose no engine can read, so every page job
/// fails.
pub fn server_failing_pages() -> TestServer {
    TestServer::builder()
        .responder(|req| {
            let message = req.first_user_message();
            Some(Reply::text(if canned::is_page_prompt(&message) {
                "I would rather not write this page.".to_owned()
            } else {
                canned::compilation_answer(&message)
            }))
        })
        .start()
}
