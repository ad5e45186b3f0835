//! The settings screen: the provider form, applying it, and testing a connection.

use super::*;

impl SettingsView {
    /// The view of resolved settings.
    pub fn of(settings: &Settings) -> SettingsView {
        let p = settings.provider();
        let form = |kind: ProviderKind| ProviderForm {
            kind: kind.into(),
            base_url: crate::config::default_url(kind).to_string(),
            model: crate::config::default_model(kind).to_string(),
        };
        SettingsView {
            provider: ProviderForm {
                kind: p.kind.into(),
                base_url: p.base_url.clone(),
                model: p.model.clone(),
            },
            fallbacks: if settings.pool {
                Vec::new()
            } else {
                settings.providers[1..]
                    .iter()
                    .map(|f| format!("{}:{} at {}", f.kind.as_str(), f.model, f.base_url))
                    .collect()
            },
            pool: if settings.pool {
                settings
                    .providers
                    .iter()
                    .map(|m| PoolMemberForm {
                        kind: m.kind.into(),
                        base_url: m.base_url.clone(),
                        model: m.model.clone(),
                        concurrency: u32::try_from(m.concurrency).unwrap_or(u32::MAX),
                    })
                    .collect()
            } else {
                Vec::new()
            },
            has_api_key: p.api_key.is_some(),
            data_dir: settings.data_dir.display().to_string(),
            config_file: settings
                .config_file
                .as_ref()
                .map(|f| f.display().to_string()),
            defaults: vec![
                form(ProviderKind::Ollama),
                form(ProviderKind::OpenAiCompatible),
                builtin_default(settings),
            ],
            builtin: BuiltinView::of(settings),
            applied: None,
        }
    }

    /// The view of `settings` just applied in the window, their servers kept in the config
    /// file ([`Settings::save_servers`], the file read or where one would be read from), with
    /// the line that says what is used now and where it is kept — or why it is used for
    /// this session only (no config file can be named, it is not a regular file, it is not
    /// valid TOML, it cannot be written).
    pub fn applied(settings: &Settings) -> SettingsView {
        let using = if settings.pool {
            format!("Compiling over {} servers", settings.providers.len())
        } else {
            let p = settings.provider();
            format!(
                "Compiling with {}:{} at {}",
                p.kind.as_str(),
                p.model,
                p.base_url
            )
        };
        let kept = match settings.servers_file() {
            None => "for this session only: no config file can be named (set \
                     WIKIMIND_CONFIG or HOME)"
                .to_owned(),
            Some(file) => match settings.save_servers(&file) {
                Ok(()) => format!("kept in {}", file.display()),
                Err(e) => format!("for this session only: {e}"),
            },
        };
        let mut view = SettingsView::of(settings);
        if view.config_file.is_none() && kept.starts_with("kept in ") {
            view.config_file = settings.servers_file().map(|f| f.display().to_string());
        }
        view.applied = Some(format!("{using}; {kept}"));
        view
    }
}

/// The built-in engine's form: the model file it would use (else where the default one
/// goes) and its name.
fn builtin_default(settings: &Settings) -> ProviderForm {
    let file = settings.find_model_file().or_else(|| {
        settings
            .model_dir
            .as_ref()
            .map(|d| d.join(crate::config::DEFAULT_BUILTIN_MODEL))
    });
    let file = file.map(|f| f.display().to_string()).unwrap_or_default();
    ProviderForm {
        kind: ProviderKindView::Builtin,
        model: model_file_name(&file),
        base_url: file,
    }
}

/// The file name of a model path (what the built-in engine reports as its model).
fn model_file_name(path: &str) -> String {
    Path::new(path)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// `settings` with the primary provider replaced by the form's, checked like the config
/// file, and every API key resolved again from `keys` ([`Settings::with_keys`]): the
/// primary gets the key of the form's server, never the one of the server it had before.
/// For the built-in engine the form's `base_url` is the model file's path.
pub fn with_primary(
    settings: &Settings,
    form: &ProviderForm,
    keys: &dyn KeyStore,
) -> Result<Settings, crate::config::ConfigError> {
    let kind = ProviderKind::from(form.kind);
    if kind == ProviderKind::Builtin {
        let file = form.base_url.trim();
        if file.is_empty() {
            return Err(crate::config::ConfigError::Invalid {
                what: "model file".into(),
                message: "choose a .gguf model file for the built-in engine".into(),
            });
        }
        let mut next = settings.clone();
        if let Some(primary) = next.providers.first_mut() {
            primary.kind = kind;
            primary.base_url = file.to_string();
            primary.model = model_file_name(file);
        }
        return Ok(next.with_keys(keys));
    }
    let url = form.base_url.trim().trim_end_matches('/').to_string();
    match url::Url::parse(&url) {
        Ok(u) if matches!(u.scheme(), "http" | "https") && u.host_str().is_some() => {}
        _ => {
            return Err(crate::config::ConfigError::Invalid {
                what: "base URL".into(),
                message: format!("{url:?} is not an http(s) URL with a host"),
            })
        }
    }
    if form.model.trim().is_empty() {
        return Err(crate::config::ConfigError::Invalid {
            what: "model".into(),
            message: "choose a model".into(),
        });
    }
    let mut next = settings.clone();
    if let Some(primary) = next.providers.first_mut() {
        primary.kind = kind;
        primary.base_url = url;
        primary.model = form.model.trim().to_string();
    }
    Ok(next.with_keys(keys))
}

/// `settings` with `members` as its pool, each checked as [`with_primary`] checks a form
/// (and its concurrency at least 1), every API key resolved again from `keys`. No members:
/// no pool, the first server it had alone.
pub fn with_pool(
    settings: &Settings,
    members: &[PoolMemberForm],
    keys: &dyn KeyStore,
) -> Result<Settings, crate::config::ConfigError> {
    let mut next = settings.clone();
    next.pool = !members.is_empty();
    if members.is_empty() {
        next.providers.truncate(1);
        if let Some(first) = next.providers.first_mut() {
            first.concurrency = 1;
        }
        return Ok(next.with_keys(keys));
    }
    let mut providers = Vec::with_capacity(members.len());
    for (i, m) in members.iter().enumerate() {
        let named = |e: crate::config::ConfigError| match e {
            crate::config::ConfigError::Invalid { what, message } => {
                crate::config::ConfigError::Invalid {
                    what: format!("pool member {}: {what}", i + 1),
                    message,
                }
            }
            other => other,
        };
        if m.concurrency == 0 {
            return Err(named(crate::config::ConfigError::Invalid {
                what: "concurrency".into(),
                message: "must be at least 1".into(),
            }));
        }
        let form = ProviderForm {
            kind: m.kind,
            base_url: m.base_url.clone(),
            model: m.model.clone(),
        };
        let one = with_primary(settings, &form, keys).map_err(named)?;
        let mut member = one.provider().clone();
        member.concurrency = m.concurrency as usize;
        providers.push(member);
    }
    next.providers = providers;
    Ok(next.with_keys(keys))
}

/// "Test connection" for a settings form not yet applied: the form's provider as
/// [`with_primary`] makes it (with the key of the form's server only) asked for its models
/// by [`check_connection`]. A form that is not valid says why.
pub async fn check_form(
    settings: &Settings,
    form: &ProviderForm,
    keys: &dyn KeyStore,
) -> ConnectionCheck {
    match with_primary(settings, form, keys) {
        Ok(next) => check_connection(&next).await,
        Err(e) => ConnectionCheck::failed(e.to_string()),
    }
}

/// What the app opens on: the first-run screen for an empty wiki whose model does not
/// answer, else the library (with the model's state, shown as a banner when it is not
/// fine).
pub async fn opening(
    wiki: &Wiki,
    settings: &Settings,
    notices: &[String],
    upgrading: bool,
) -> Result<OpeningView> {
    let check = check_connection(settings).await;
    let empty = wiki.is_empty()?;
    Ok(OpeningView {
        first_run: empty && !check.ok,
        check,
        notices: notices.to_vec(),
        upgrading,
        database_upgrade: None,
    })
}

/// What the app opens on before the wiki can be read: while opening upgrades its database
/// (`upgrade`, the line [`Wiki::upgrade_ahead`] gave), or after opening failed (the
/// `notices` say why). The model's state and the notices so far; never the first-run
/// screen, since the wiki had a database.
pub async fn opening_before_the_wiki(
    settings: &Settings,
    notices: &[String],
    upgrade: Option<&str>,
) -> OpeningView {
    OpeningView {
        first_run: false,
        check: check_connection(settings).await,
        notices: notices.to_vec(),
        upgrading: upgrade.is_some(),
        database_upgrade: upgrade.map(str::to_owned),
    }
}

/// Asks the primary provider for its model list: whether it is reachable, what it offers,
/// and whether the configured model is among it ([`crate::llm::model_available`]).
///
/// It asks once: a check says what is true now. A compile's transport retries a refused
/// connection three times, 0.5, 1 and 2 s apart, which kept the window's banner 3.5 s from
/// saying that nothing answers; the window asks again on its own while it says so.
pub async fn check_connection(settings: &Settings) -> ConnectionCheck {
    let model = settings.provider().model.clone();
    let mut once = settings.clone();
    once.compile.transport_retries = 0;
    let slots = match crate::compile::providers_from_settings(&once) {
        Ok(s) => s,
        Err(e) => return ConnectionCheck::failed(e.to_string()),
    };
    let Some(slot) = slots.first() else {
        return ConnectionCheck::failed("no provider is configured");
    };
    match crate::provider_check::list_models(&*slot.provider, &model).await {
        Ok(list) if slot.provider.kind() == ProviderKind::Builtin => {
            let what = list
                .models
                .first()
                .map(|m| {
                    let size = m.size_bytes.map_or(String::new(), |b| {
                        format!(", {:.0} MB", b as f64 / 1_000_000.0)
                    });
                    let family = m.family.as_deref().unwrap_or("unknown architecture");
                    format!("{family}{size}")
                })
                .unwrap_or_default();
            ConnectionCheck {
                ok: true,
                message: format!(
                    "{} is a GGUF model ({what}): the built-in engine can compile with it, no server needed",
                    slot.provider.base_url()
                ),
                models: list.names(),
                model_available: list.model_available,
            }
        }
        Ok(list) => {
            let models = list.names();
            let message = match (models.len(), list.model_available) {
                (0, _) => format!("{} answered but offers no models", slot.provider.describe()),
                (n, true) => format!(
                    "{} answered: {n} model(s), {model} among them",
                    slot.provider.describe()
                ),
                (n, false) => format!(
                    "{} answered with {n} model(s), but not {model}: pick one of them",
                    slot.provider.describe()
                ),
            };
            ConnectionCheck {
                ok: true,
                message,
                models,
                model_available: list.model_available,
            }
        }
        Err(e) => ConnectionCheck::failed(e.to_string()),
    }
}
