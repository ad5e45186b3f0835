//! Keeping the model servers a person chose in the window: they are written into the
//! config file ([`Settings::save_servers`]), and everything else in it — other tables and
//! keys, comments, the order — stays as it was.

use std::path::Path;

use toml_edit::{value, ArrayOfTables, DocumentMut, Item, Table};

use super::{ConfigError, ProviderConfig, Settings};
use wikimind_llm::ProviderKind;

impl Settings {
    /// The config file the window keeps its servers in: the one read, else where one would
    /// be read from (`WIKIMIND_CONFIG`, else the XDG config folder); `None` when neither
    /// can be named.
    pub fn servers_file(&self) -> Option<std::path::PathBuf> {
        self.config_file.clone().or_else(|| {
            super::config_path(&|name: &str| std::env::var(name).ok().filter(|v| !v.is_empty()))
        })
    }

    /// Writes these settings' model servers into the config file at `path` (created with
    /// its folder when missing): a pool as `[[pool]]` tables, replacing `[provider]` and
    /// `[[fallback]]` (a file with both is refused when read); one server as `[provider]`,
    /// updated in place (its comments kept), `[[pool]]` removed and `[[fallback]]` kept. API
    /// keys never go into the file (they are in the keyring). The file is written whole to
    /// a temporary file beside it and renamed, so a reader never sees half of it.
    ///
    /// Refused, with the reason, when `path` is not a regular file (`/dev/null`, say: the
    /// servers are then for this session only) or is not valid TOML.
    pub fn save_servers(&self, path: &Path) -> Result<(), ConfigError> {
        // A config file kept as a link (dotfiles) is written where the link leads, so the
        // link stays; and it keeps its permissions.
        let linked = std::fs::canonicalize(path).ok();
        let path = linked.as_deref().unwrap_or(path);
        let permissions = std::fs::metadata(path).ok().map(|m| m.permissions());
        let text = match std::fs::metadata(path) {
            Ok(meta) if !meta.is_file() => {
                return Err(ConfigError::Invalid {
                    what: format!("config file {}", path.display()),
                    message: "it is not a regular file, so nothing is written to it".to_owned(),
                })
            }
            Ok(_) => std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
                path: path.to_path_buf(),
                source,
            })?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(source) => {
                return Err(ConfigError::Read {
                    path: path.to_path_buf(),
                    source,
                })
            }
        };
        let mut doc: DocumentMut =
            text.parse()
                .map_err(|e: toml_edit::TomlError| ConfigError::Parse {
                    path: path.display().to_string(),
                    message: e.message().to_owned(),
                })?;
        if self.pool {
            doc.remove("provider");
            doc.remove("fallback");
            let mut pool = ArrayOfTables::new();
            for member in &self.providers {
                let mut table = Table::new();
                write_server(&mut table, member);
                table.insert("concurrency", value(member.concurrency as i64));
                pool.push(table);
            }
            doc.insert("pool", Item::ArrayOfTables(pool));
        } else if let Some(primary) = self.providers.first() {
            doc.remove("pool");
            let table = doc
                .entry("provider")
                .or_insert_with(|| Item::Table(Table::new()));
            if !table.is_table() {
                *table = Item::Table(Table::new());
            }
            if let Some(table) = table.as_table_mut() {
                write_server(table, primary);
            }
        }
        write_whole(path, &doc.to_string(), permissions)
    }
}

/// Sets `server`'s keys in `table` (`kind`, then `base_url` and `model`, or `model_path` for
/// the built-in engine), removing the ones it does not have; other keys stay, and so do the
/// comments around a key that is changed.
fn write_server(table: &mut Table, server: &ProviderConfig) {
    set(table, "kind", server.kind.as_str());
    if server.kind == ProviderKind::Builtin {
        table.remove("base_url");
        table.remove("model");
        set(table, "model_path", &server.base_url);
    } else {
        table.remove("model_path");
        set(table, "base_url", &server.base_url);
        set(table, "model", &server.model);
    }
}

/// Sets `key` of `table` to the string `text`: a value already there keeps its comments
/// and spacing (its decor), a new key is added.
fn set(table: &mut Table, key: &str, text: &str) {
    match table.get_mut(key).and_then(Item::as_value_mut) {
        Some(old) if old.as_str() == Some(text) => {}
        Some(old) => {
            let decor = old.decor().clone();
            *old = toml_edit::Value::from(text);
            *old.decor_mut() = decor;
        }
        None => {
            table.insert(key, value(text));
        }
    }
}

/// Writes `text` to `path` through a temporary file beside it (with `permissions`, the
/// old file's, when given), renamed over it.
fn write_whole(
    path: &Path,
    text: &str,
    permissions: Option<std::fs::Permissions>,
) -> Result<(), ConfigError> {
    let failed = |source: std::io::Error| ConfigError::Write {
        path: path.to_path_buf(),
        source,
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(failed)?;
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| super::CONFIG_FILE.to_owned());
    let part = path.with_file_name(format!(".{name}.{}.part", std::process::id()));
    std::fs::write(&part, text)
        .and_then(|()| match permissions {
            Some(permissions) => std::fs::set_permissions(&part, permissions),
            None => Ok(()),
        })
        .and_then(|()| std::fs::rename(&part, path))
        .map_err(|e| {
            let _ = std::fs::remove_file(&part);
            failed(e)
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Overrides;

    const FILE: &str = "# My wiki's settings.\n\
        data_dir = \"/wiki\"\n\
        \n\
        # The GPU box.\n\
        [provider]\n\
        kind = \"ollama\" # fast\n\
        base_url = \"http://gpu:11434\"\n\
        model = \"llama3\"\n\
        \n\
        [[fallback]]\n\
        kind = \"openai\"\n\
        base_url = \"http://cloud/v1\"\n\
        model = \"small\"\n\
        \n\
        [compile]\n\
        concurrency = 2\n";

    /// The settings of no file, with a data directory.
    fn bare() -> Settings {
        let env = |k: &str| (k == "WIKIMIND_DATA_DIR").then(|| "/wiki".to_owned());
        Settings::resolve(&Overrides::default(), &env, None).unwrap()
    }

    /// The settings a file at `path` resolves to, with no flags or variables.
    fn read(path: &Path) -> Settings {
        let text = std::fs::read_to_string(path).unwrap();
        Settings::resolve(&Overrides::default(), &|_| None, Some((path, &text))).unwrap()
    }

    /// A person's other choice of server is kept in the file: `[provider]` changes in
    /// place, and every other table, key and comment stays, so the file reads back as the
    /// settings the window had.
    #[test]
    fn one_server_is_written_into_provider_keeping_the_rest_of_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(&path, FILE).unwrap();
        let mut settings = read(&path);
        settings.providers[0].base_url = "http://laptop:11434".to_owned();
        settings.providers[0].model = "qwen3".to_owned();
        settings.save_servers(&path).unwrap();

        let text = std::fs::read_to_string(&path).unwrap();
        for kept in [
            "# My wiki's settings.",
            "# The GPU box.",
            "kind = \"ollama\" # fast",
            "[[fallback]]",
            "[compile]\nconcurrency = 2",
        ] {
            assert!(text.contains(kept), "{kept:?} is gone from:\n{text}");
        }
        let again = read(&path);
        assert_eq!(again.providers, settings.providers);
        assert!(!again.pool);
        assert_eq!(again.compile.concurrency, 2);
    }

    /// A pool replaces `[provider]` and `[[fallback]]` (a file with both is refused), each
    /// member with its concurrency; one server again removes the pool.
    #[test]
    fn a_pool_replaces_the_provider_and_one_server_again_replaces_the_pool() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(&path, FILE).unwrap();
        let mut settings = read(&path);
        settings.pool = true;
        settings.providers[0].concurrency = 3;
        settings.providers[1].concurrency = 1;
        settings.save_servers(&path).unwrap();

        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            !text.contains("[provider]") && !text.contains("[[fallback]]"),
            "{text}"
        );
        assert_eq!(text.matches("[[pool]]").count(), 2, "{text}");
        let pooled = read(&path);
        assert!(pooled.pool);
        assert_eq!(pooled.providers, settings.providers);

        let mut alone = pooled.clone();
        alone.pool = false;
        alone.providers.truncate(1);
        alone.providers[0].concurrency = 1;
        alone.save_servers(&path).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(!text.contains("[[pool]]"), "{text}");
        let back = read(&path);
        assert!(!back.pool);
        assert_eq!(back.providers, alone.providers);
        assert!(text.contains("# My wiki's settings.") && text.contains("[compile]"));
    }

    /// A config file that does not exist yet is made, with its folder; a built-in engine is
    /// kept as its model file.
    #[test]
    fn a_missing_file_is_made_and_the_builtin_engine_keeps_its_model_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("wikimind").join("config.toml");
        let mut settings = bare();
        settings.providers[0].kind = ProviderKind::Builtin;
        settings.providers[0].base_url = "/models/qwen.gguf".to_owned();
        settings.providers[0].model = "qwen.gguf".to_owned();
        settings.save_servers(&path).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("kind = \"builtin\""), "{text}");
        assert!(
            text.contains("model_path = \"/models/qwen.gguf\""),
            "{text}"
        );
        assert!(!text.contains("base_url"), "{text}");
    }

    /// A config file kept as a link is written where the link leads (the link stays), and
    /// keeps its permissions.
    #[cfg(unix)]
    #[test]
    fn a_linked_config_file_stays_a_link_with_its_permissions() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("dotfiles").join("wikimind.toml");
        std::fs::create_dir_all(real.parent().unwrap()).unwrap();
        std::fs::write(&real, FILE).unwrap();
        std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o600)).unwrap();
        let link = dir.path().join("config.toml");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let mut settings = read(&link);
        settings.providers[0].model = "qwen3".to_owned();
        settings.save_servers(&link).unwrap();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(read(&real).providers[0].model, "qwen3");
        let mode = std::fs::metadata(&real).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }

    /// What is not a regular file is never written (the tests and scripts point
    /// `WIKIMIND_CONFIG` at `/dev/null`), and a file that is not TOML is refused, unchanged.
    #[test]
    fn a_device_or_a_broken_file_is_left_alone() {
        let settings = bare();
        let error = settings
            .save_servers(Path::new("/dev/null"))
            .unwrap_err()
            .to_string();
        assert!(error.contains("not a regular file"), "{error}");
        assert!(!Path::new("/dev/null").is_file());

        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(&path, "[provider\nkind = ").unwrap();
        let error = settings.save_servers(&path).unwrap_err().to_string();
        assert!(error.starts_with(&path.display().to_string()), "{error}");
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "[provider\nkind = "
        );
    }
}
