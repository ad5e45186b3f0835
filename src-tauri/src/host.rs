//! The narrow context every command runs against: the open wiki, its compile queue, and
//! where API keys go. Commands see a [`Host`], never an `AppHandle`, so the same bodies run
//! under the window and in tests.

use wikimind::config::{Overrides, Settings};
use wikimind::llm::{key_id, Secret, SystemKeyring};
use wikimind::queue::CompileQueue;
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
    /// Its compile queue (which also holds the current settings).
    pub queue: CompileQueue,
    /// Where API keys are kept.
    pub keyring: SystemKeyring,
}

/// Settings for the app: `WIKIMIND_DATA_DIR`, `WIKIMIND_PROVIDER`, `WIKIMIND_BASE_URL` and
/// `WIKIMIND_MODEL` as the core reads them; without `WIKIMIND_DATA_DIR` a debug build uses
/// `wikimind-dev` beside the default data dir, so development never touches a real wiki.
pub fn load_settings() -> Result<Settings, wikimind::config::ConfigError> {
    let env_dir = std::env::var_os("WIKIMIND_DATA_DIR").filter(|v| !v.is_empty());
    let mut overrides = Overrides::default();
    if cfg!(debug_assertions) && env_dir.is_none() {
        let env = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        overrides.data_dir =
            wikimind::config::default_data_dir(&env).map(|d| d.with_file_name("wikimind-dev"));
    }
    let settings = Settings::load(&overrides)?;
    Ok(view::with_keys(
        settings,
        &SystemKeyring::with_service(KEYRING_SERVICE),
    ))
}

impl Host {
    /// The settings screen's view of the current settings.
    pub fn settings_view(&self) -> SettingsView {
        SettingsView::of(&self.queue.settings())
    }

    /// Uses `form` as the primary provider from now on (this session).
    pub fn apply_provider(&self, form: &ProviderForm) -> Result<SettingsView, String> {
        let next = view::with_primary(&self.queue.settings(), form, &self.keyring)
            .map_err(|e| e.to_string())?;
        self.queue.set_settings(next);
        Ok(self.settings_view())
    }

    /// Stores an API key for the primary provider's server in the OS keyring (under its
    /// base URL, as the CLI looks it up) and uses it.
    pub fn save_api_key(&self, form: &ProviderForm, key: &str) -> Result<SettingsView, String> {
        if wikimind::llm::ProviderKind::from(form.kind) == wikimind::llm::ProviderKind::Builtin {
            return Err("the built-in engine takes no API key".into());
        }
        self.keyring
            .set(&key_id(&form.base_url), &Secret::new(key.trim()))
            .map_err(|e| format!("{e} — set WIKIMIND_API_KEY instead"))?;
        self.queue
            .set_settings(view::with_keys(self.queue.settings(), &self.keyring));
        Ok(self.settings_view())
    }
}
