//! API keys: a [`Secret`] type that never prints, and where keys come from.
//!
//! Keys live in the operating system's keyring when one is reachable, else in the
//! `WIKIMIND_API_KEY` environment variable. This module does not read the environment (that
//! is the config module's job): the caller passes the variable's value to [`api_key`].
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

/// A keyring could not be read.
#[derive(Debug, thiserror::Error)]
#[error("cannot read the keyring: {0}")]
pub struct KeyStoreError(pub String);

/// Somewhere API keys are stored, by provider id (e.g. `openai`, or a named provider from
/// the config file).
pub trait KeyStore: Send + Sync {
    /// The key stored for this provider, if any.
    fn get(&self, provider_id: &str) -> Result<Option<Secret>, KeyStoreError>;
}

/// A key store that holds nothing: used where no OS keyring is available.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoKeyStore;

impl KeyStore for NoKeyStore {
    fn get(&self, _provider_id: &str) -> Result<Option<Secret>, KeyStoreError> {
        Ok(None)
    }
}

/// The operating system's keyring (Secret Service on Linux, Keychain on macOS, Credential
/// Manager on Windows). Keys are stored under a service name (default `wikimind`) with the
/// provider id as the user name.
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

    fn entry(&self, provider_id: &str) -> Result<keyring::Entry, KeyStoreError> {
        keyring::Entry::new(&self.service, provider_id).map_err(|e| KeyStoreError(e.to_string()))
    }

    /// Stores a key for a provider (in the keyring, never in a file).
    pub fn set(&self, provider_id: &str, key: &Secret) -> Result<(), KeyStoreError> {
        self.entry(provider_id)?
            .set_password(key.expose())
            .map_err(|e| KeyStoreError(e.to_string()))
    }

    /// Removes a provider's key; removing a key that is not there is not an error.
    pub fn delete(&self, provider_id: &str) -> Result<(), KeyStoreError> {
        match self.entry(provider_id)?.delete_credential() {
            Ok(()) | Err(keyring::Error::NoEntry) => Ok(()),
            Err(e) => Err(KeyStoreError(e.to_string())),
        }
    }
}

impl KeyStore for SystemKeyring {
    fn get(&self, provider_id: &str) -> Result<Option<Secret>, KeyStoreError> {
        match self.entry(provider_id)?.get_password() {
            Ok(key) => Ok(Some(Secret::new(key))),
            Err(keyring::Error::NoEntry) => Ok(None),
            Err(e) => Err(KeyStoreError(e.to_string())),
        }
    }
}

/// The keyring entry a server's key is stored under: its base URL without a trailing `/`.
/// Keys belong to a server, so a key saved for one address is never sent to another; the
/// CLI and the desktop app look keys up the same way.
pub fn key_id(base_url: &str) -> String {
    base_url.trim().trim_end_matches('/').to_string()
}

/// The API key for a provider: `WIKIMIND_API_KEY` as the config module read it
/// (`from_env`) when set — the environment beats stored settings — else the key store's
/// (the OS keyring). A keyring that cannot be read counts as empty. Empty strings are no
/// key.
pub fn api_key(
    provider_id: &str,
    store: &dyn KeyStore,
    from_env: Option<Secret>,
) -> Option<Secret> {
    from_env
        .filter(|s| !s.expose().trim().is_empty())
        .or_else(|| store.get(provider_id).ok().flatten())
        .filter(|s| !s.expose().trim().is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    struct OneKey;
    impl KeyStore for OneKey {
        fn get(&self, id: &str) -> Result<Option<Secret>, KeyStoreError> {
            Ok((id == "openai").then(|| Secret::new("from-keyring")))
        }
    }

    struct Broken;
    impl KeyStore for Broken {
        fn get(&self, _: &str) -> Result<Option<Secret>, KeyStoreError> {
            Err(KeyStoreError("no Secret Service".into()))
        }
    }

    #[test]
    fn the_environment_comes_first_then_the_keyring() {
        let env = Some(Secret::new("from-env"));
        let key = |store: &dyn KeyStore, id, env| {
            api_key(id, store, env).map(|s: Secret| s.expose().to_string())
        };
        assert_eq!(
            key(&OneKey, "openai", env.clone()).as_deref(),
            Some("from-env")
        );
        assert_eq!(
            key(&OneKey, "openai", None).as_deref(),
            Some("from-keyring")
        );
        assert_eq!(key(&OneKey, "other", None).as_deref(), None);
        assert_eq!(key(&Broken, "openai", env).as_deref(), Some("from-env"));
        assert_eq!(key(&NoKeyStore, "openai", Some(Secret::new(" "))), None);
    }

    #[test]
    fn a_machine_without_a_keyring_service_is_not_an_error_for_the_caller() {
        // CI has no Secret Service; the lookup must fail quietly and fall back.
        let store = SystemKeyring::with_service("wikimind-test-nonexistent");
        let _ = store.get("nobody");
        let key = api_key("nobody", &store, Some(Secret::new("env")));
        assert_eq!(key.map(|k| k.expose().to_string()).as_deref(), Some("env"));
    }

    #[test]
    fn secrets_never_print() {
        let s = Secret::new("sk-very-secret");
        assert_eq!(format!("{s} {s:?} {:?}", Some(&s)), "*** *** Some(***)");
    }
}
