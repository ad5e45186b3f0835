//! API keys: a [`Secret`] type that never prints, and where keys come from.
//!
//! Keys live in the operating system's keyring, each under the base URL of the one server
//! it belongs to ([`key_id`]). This module does not read the environment, and does not
//! decide which provider gets which key: the config module does both, once
//! (`wikimind::config::Settings::with_keys`), through a [`KeyStore`] its caller passes in.
//! Keys are never written to disk by WikiMind.

/// A secret string (an API key). `Debug` and `Display` print `***`; read it with
/// [`Secret::expose`] only where it goes on the wire.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps a secret.
    pub fn new(secret: impl Into<String>) -> Self {
        Secret(secret.into())
    }

    /// The secret itself.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("***")
    }
}

impl std::fmt::Display for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("***")
    }
}

/// A keyring could not be read or written.
#[derive(Debug, thiserror::Error)]
#[error("the keyring failed: {0}")]
pub struct KeyStoreError(pub String);

/// Somewhere API keys are stored, each under the [`key_id`] of the one server it belongs
/// to. The settings layer (`wikimind::config::Settings::with_keys`) is the only reader: every
/// caller gets its keys from there, so the rule of which key goes where lives in one place.
pub trait KeyStore: Send + Sync {
    /// The key stored under this id, if any.
    fn get(&self, key_id: &str) -> Result<Option<Secret>, KeyStoreError>;

    /// Stores a key under this id, replacing any key there.
    fn set(&self, key_id: &str, key: &Secret) -> Result<(), KeyStoreError>;
}

/// A key store that holds nothing and stores nothing: used where no OS keyring is
/// available.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoKeyStore;

impl KeyStore for NoKeyStore {
    fn get(&self, _key_id: &str) -> Result<Option<Secret>, KeyStoreError> {
        Ok(None)
    }

    fn set(&self, _key_id: &str, _key: &Secret) -> Result<(), KeyStoreError> {
        Err(KeyStoreError("no keyring is available here".into()))
    }
}

/// Keys held in memory for as long as the value lives: the test double of the OS keyring
/// (nothing is written anywhere).
#[derive(Debug, Default)]
pub struct MemoryKeyStore {
    keys: std::sync::Mutex<std::collections::HashMap<String, Secret>>,
}

impl MemoryKeyStore {
    /// An empty store.
    pub fn new() -> Self {
        MemoryKeyStore::default()
    }
}

impl KeyStore for MemoryKeyStore {
    fn get(&self, key_id: &str) -> Result<Option<Secret>, KeyStoreError> {
        let keys = self.keys.lock().unwrap_or_else(|e| e.into_inner());
        Ok(keys.get(key_id).cloned())
    }

    fn set(&self, key_id: &str, key: &Secret) -> Result<(), KeyStoreError> {
        let mut keys = self.keys.lock().unwrap_or_else(|e| e.into_inner());
        keys.insert(key_id.to_string(), key.clone());
        Ok(())
    }
}

/// The operating system's keyring (Secret Service on Linux, Keychain on macOS, Credential
/// Manager on Windows). Keys are stored under a service name (default `wikimind`; the
/// desktop app's debug builds use `wikimind-dev`) with the server's [`key_id`] as the user
/// name.
#[derive(Debug, Clone)]
pub struct SystemKeyring {
    service: String,
}

impl Default for SystemKeyring {
    fn default() -> Self {
        SystemKeyring::new()
    }
}

impl SystemKeyring {
    /// The keyring under the service name `wikimind`.
    pub fn new() -> Self {
        SystemKeyring::with_service("wikimind")
    }

    /// The keyring under another service name (debug builds and tests use their own).
    pub fn with_service(service: impl Into<String>) -> Self {
        SystemKeyring {
            service: service.into(),
        }
    }

    fn entry(&self, key_id: &str) -> Result<keyring::Entry, KeyStoreError> {
        keyring::Entry::new(&self.service, key_id).map_err(|e| KeyStoreError(e.to_string()))
    }

    /// Removes a key; removing a key that is not there is not an error.
    pub fn delete(&self, key_id: &str) -> Result<(), KeyStoreError> {
        match self.entry(key_id)?.delete_credential() {
            Ok(()) | Err(keyring::Error::NoEntry) => Ok(()),
            Err(e) => Err(KeyStoreError(e.to_string())),
        }
    }
}

impl KeyStore for SystemKeyring {
    fn get(&self, key_id: &str) -> Result<Option<Secret>, KeyStoreError> {
        match self.entry(key_id)?.get_password() {
            Ok(key) => Ok(Some(Secret::new(key))),
            Err(keyring::Error::NoEntry) => Ok(None),
            Err(e) => Err(KeyStoreError(e.to_string())),
        }
    }

    /// Stores a key (in the keyring, never in a file).
    fn set(&self, key_id: &str, key: &Secret) -> Result<(), KeyStoreError> {
        self.entry(key_id)?
            .set_password(key.expose())
            .map_err(|e| KeyStoreError(e.to_string()))
    }
}

/// The id a server's key is stored under: its base URL without surrounding space or a
/// trailing `/`. A key belongs to exactly one server, so a key saved for one address is
/// never sent to another; the CLI and the desktop app store and find keys the same way.
pub fn key_id(base_url: &str) -> String {
    base_url.trim().trim_end_matches('/').to_string()
}

/// The key stored for a server, if any: a keyring that cannot be read counts as empty (CI
/// and headless machines have no Secret Service), and a blank key is no key.
pub fn stored_key(store: &dyn KeyStore, base_url: &str) -> Option<Secret> {
    store
        .get(&key_id(base_url))
        .ok()
        .flatten()
        .filter(|s| !s.expose().trim().is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Broken;
    impl KeyStore for Broken {
        fn get(&self, _: &str) -> Result<Option<Secret>, KeyStoreError> {
            Err(KeyStoreError("no Secret Service".into()))
        }
        fn set(&self, _: &str, _: &Secret) -> Result<(), KeyStoreError> {
            Err(KeyStoreError("no Secret Service".into()))
        }
    }

    #[test]
    fn a_key_is_found_only_under_its_own_server() {
        let store = MemoryKeyStore::new();
        store
            .set(&key_id("http://a.test/v1/"), &Secret::new("key-a"))
            .unwrap();
        let found = |url| stored_key(&store, url).map(|k| k.expose().to_string());
        assert_eq!(found("http://a.test/v1").as_deref(), Some("key-a"));
        assert_eq!(found(" http://a.test/v1/ ").as_deref(), Some("key-a"));
        assert_eq!(found("http://b.test/v1"), None);
        assert_eq!(found("http://a.test"), None);
        store
            .set(&key_id("http://b.test/v1"), &Secret::new("  "))
            .unwrap();
        assert_eq!(found("http://b.test/v1"), None, "a blank key is no key");
    }

    #[test]
    fn a_keyring_that_cannot_be_read_holds_no_keys() {
        assert!(stored_key(&Broken, "http://a.test").is_none());
        assert!(stored_key(&NoKeyStore, "http://a.test").is_none());
        assert!(NoKeyStore.set("x", &Secret::new("k")).is_err());
    }

    #[test]
    fn a_machine_without_a_keyring_service_is_not_an_error_for_the_caller() {
        // CI has no Secret Service; the lookup must fail quietly.
        let store = SystemKeyring::with_service("wikimind-test-nonexistent");
        assert!(stored_key(&store, "nobody").is_none());
    }

    #[test]
    fn secrets_never_print() {
        let s = Secret::new("sk-very-secret");
        assert_eq!(format!("{s} {s:?} {:?}", Some(&s)), "*** *** Some(***)");
    }
}
