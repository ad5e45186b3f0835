//! The narrow context every command runs against: the open wiki, its job runner, and
//! where API keys go. Commands see a [`Host`], never an `AppHandle`, so the same bodies run
//! under the window and in tests.

use wikimind::config::{Overrides, Settings};
use wikimind::llm::{KeyStore, SystemKeyring};
use wikimind::queue::JobRunner;
use wikimind::store::SourceId;
use wikimind::view::{self, ProviderForm, SettingsView};
use wikimind::wiki::Wiki;

/// The keyring service name: debug builds keep their keys apart from a person's real ones.
pub const KEYRING_SERVICE: &str = if cfg!(debug_assertions) {
    "wikimind-dev"
} else {
    "wikimind"
};

/// What commands work with.
pub struct Host {
    /// The open wiki.
    pub wiki: Wiki,
    /// The runner of its job queue (which also holds the current settings).
    pub queue: JobRunner,
    /// Where API keys are kept: the OS keyring under [`KEYRING_SERVICE`] ([`keyring`]).
    pub keys: std::sync::Arc<dyn KeyStore>,
}

/// The app's keyring: debug builds use their own service, so development never reads or
/// overwrites a person's real keys.
pub fn keyring() -> SystemKeyring {
    SystemKeyring::with_service(KEYRING_SERVICE)
}

/// Settings for the app: `WIKIMIND_DATA_DIR`, `WIKIMIND_PROVIDER`, `WIKIMIND_BASE_URL` and
/// `WIKIMIND_MODEL` as the core reads them; without `WIKIMIND_DATA_DIR` a debug build uses
/// `wikimind-dev` beside the default data dir, so development never touches a real wiki.
/// API keys come from `keys` (the app's [`keyring`]).
pub fn load_settings(keys: &dyn KeyStore) -> Result<Settings, wikimind::config::ConfigError> {
    let env_dir = std::env::var_os("WIKIMIND_DATA_DIR").filter(|v| !v.is_empty());
    let mut overrides = Overrides::default();
    if cfg!(debug_assertions) && env_dir.is_none() {
        let env = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        overrides.data_dir =
            wikimind::config::default_data_dir(&env).map(|d| d.with_file_name("wikimind-dev"));
    }
    Settings::load(&overrides, keys)
}

impl Host {
    /// The settings screen's view of the current settings.
    pub fn settings_view(&self) -> SettingsView {
        SettingsView::of(&self.queue.settings())
    }

    /// Uses `form` as the primary provider from now on (this session).
    pub fn apply_provider(&self, form: &ProviderForm) -> Result<SettingsView, String> {
        let next = view::with_primary(&self.queue.settings(), form, &*self.keys)
            .map_err(|e| e.to_string())?;
        self.queue.set_settings(next);
        Ok(self.settings_view())
    }

    /// Stores a note for a wanted page built from its mentions, and queues its compile.
    pub fn create_wanted(&self, title: &str) -> Result<view::IngestView, String> {
        let note = self
            .wiki
            .create_wanted_view(title)
            .map_err(|e| e.to_string())?;
        let added: Vec<_> = note.added.iter().map(|a| SourceId(a.source_id)).collect();
        self.queue
            .enqueue(&added, None)
            .map_err(|e| e.to_string())?;
        Ok(note)
    }

    /// Stores an API key for the form's server in the OS keyring (under its base URL, as
    /// the CLI stores it) and uses it wherever that server is used.
    pub fn save_api_key(&self, form: &ProviderForm, key: &str) -> Result<SettingsView, String> {
        let next = self
            .queue
            .settings()
            .save_key(form.kind.into(), &form.base_url, key, &*self.keys)
            .map_err(|e| e.to_string())?;
        self.queue.set_settings(next);
        Ok(self.settings_view())
    }
}
