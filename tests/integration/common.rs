//! What several integration tests start from.

use wikimind::config::{Overrides, Settings};

/// Settings as a person with no config file and no environment gets them, with the primary
/// provider at `base_url` and `concurrency` workers; the data dir is never opened.
pub fn settings_for(base_url: &str, concurrency: Option<usize>) -> Settings {
    let overrides = Overrides {
        data_dir: Some("unused-by-this-test".into()),
        base_url: Some(base_url.to_string()),
        concurrency,
        ..Overrides::default()
    };
    Settings::resolve(&overrides, &|_| None, None).unwrap()
}
