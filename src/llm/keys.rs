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

/// The API key for a provider: the key store's (the OS keyring) when it has one, else the
/// value of `WIKIMIND_API_KEY` that the config module read (`from_env`). A keyring that
/// cannot be read counts as empty. Empty strings are no key.
pub fn api_key(
    provider_id: &str,
    store: &dyn KeyStore,
    from_env: Option<Secret>,
) -> Option<Secret> {
    store
        .get(provider_id)
        .ok()
        .flatten()
        .or(from_env)
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
    fn the_keyring_comes_first_then_the_environment() {
        let env = Some(Secret::new("from-env"));
        let key = |store: &dyn KeyStore, id, env| {
            api_key(id, store, env).map(|s: Secret| s.expose().to_string())
        };
        assert_eq!(
            key(&OneKey, "openai", env.clone()).as_deref(),
            Some("from-keyring")
        );
        assert_eq!(
            key(&OneKey, "other", env.clone()).as_deref(),
            Some("from-env")
        );
        assert_eq!(key(&Broken, "openai", env).as_deref(), Some("from-env"));
        assert_eq!(key(&NoKeyStore, "openai", Some(Secret::new(" "))), None);
    }

    #[test]
    fn secrets_never_print() {
        let s = Secret::new("sk-very-secret");
        assert_eq!(format!("{s} {s:?} {:?}", Some(&s)), "*** *** Some(***)");
    }
}
