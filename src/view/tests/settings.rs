//! The Settings screen: the engines offered, a model file tested, a pool of servers.

use super::*;

#[test]
fn the_builtin_engine_is_offered_with_the_model_file_it_would_use() {
    let dir = tempfile::tempdir().unwrap();
    let models = dir.path().join("models");
    std::fs::create_dir_all(&models).unwrap();
    let env = |k: &str| match k {
        "WIKIMIND_DATA_DIR" => Some(dir.path().join("data").display().to_string()),
        "WIKIMIND_MODEL_PATH" => Some(models.display().to_string()),
        _ => None,
    };
    let settings = Settings::resolve(&Default::default(), &env, None).unwrap();
    let view = SettingsView::of(&settings);
    assert_eq!(view.builtin.available, crate::llm::HAS_BUILTIN);
    assert_eq!(view.builtin.model_file, None);
    let default = view
        .defaults
        .iter()
        .find(|d| d.kind == ProviderKindView::Builtin)
        .unwrap();
    assert_eq!(
        Path::new(&default.base_url),
        models.join(crate::config::DEFAULT_BUILTIN_MODEL)
    );
    if crate::llm::HAS_BUILTIN {
        assert!(
            view.builtin.hint.contains("fetch-model.sh"),
            "{}",
            view.builtin.hint
        );
    } else {
        assert!(
            view.builtin.hint.contains("`builtin` feature"),
            "{}",
            view.builtin.hint
        );
    }

    // A model file in the folder is found and offered.
    let file = models.join("tiny.gguf");
    std::fs::write(&file, b"GGUF").unwrap();
    let view = SettingsView::of(&settings);
    assert_eq!(view.builtin.model_file, Some(file.display().to_string()));

    // Choosing it makes the built-in engine the primary provider, named by its file.
    let keys = crate::llm::NoKeyStore;
    let form = ProviderForm {
        kind: ProviderKindView::Builtin,
        base_url: file.display().to_string(),
        model: String::new(),
    };
    let next = with_primary(&settings, &form, &keys).unwrap();
    assert_eq!(next.provider().kind, ProviderKind::Builtin);
    assert_eq!(next.provider().base_url, file.display().to_string());
    assert_eq!(next.provider().model, "tiny.gguf");
    let empty = ProviderForm {
        base_url: " ".into(),
        ..form
    };
    let err = with_primary(&settings, &empty, &keys).unwrap_err();
    assert!(err.to_string().contains("model file"), "{err}");
}

#[tokio::test]
async fn testing_a_model_file_that_is_not_gguf_names_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("notes.gguf");
    std::fs::write(&file, b"# not a model\n").unwrap();
    let env = |k: &str| match k {
        "WIKIMIND_DATA_DIR" => Some(dir.path().display().to_string()),
        _ => None,
    };
    let settings = Settings::resolve(&Default::default(), &env, None).unwrap();
    let form = ProviderForm {
        kind: ProviderKindView::Builtin,
        base_url: file.display().to_string(),
        model: String::new(),
    };
    let keys = crate::llm::NoKeyStore;
    let next = with_primary(&settings, &form, &keys).unwrap();
    let check = check_connection(&next).await;
    assert!(!check.ok, "{check:?}");
    if crate::llm::HAS_BUILTIN {
        assert!(check.message.contains("notes.gguf"), "{}", check.message);
    } else {
        assert!(check.message.contains("builtin"), "{}", check.message);
    }
}

#[test]
fn the_settings_screen_sets_a_pool_shows_it_and_names_a_bad_member() {
    let env = |k: &str| (k == "HOME").then(|| "/h".to_string());
    let settings = Settings::resolve(&Default::default(), &env, None).unwrap();
    assert!(SettingsView::of(&settings).pool.is_empty());
    let keys = crate::llm::MemoryKeyStore::new();
    keys.set("http://vllm.test/v1", &crate::llm::Secret::new("k"))
        .unwrap();
    let member = |kind, url: &str, model: &str, concurrency| PoolMemberForm {
        kind,
        base_url: url.into(),
        model: model.into(),
        concurrency,
    };
    let members = [
        member(ProviderKindView::Ollama, "http://gpu.test:11434/", "m", 2),
        member(ProviderKindView::Openai, "http://vllm.test/v1", "big", 1),
    ];
    let next = with_pool(&settings, &members, &keys).unwrap();
    assert!(next.pool);
    let view = SettingsView::of(&next);
    assert_eq!(
        view.pool,
        [
            member(ProviderKindView::Ollama, "http://gpu.test:11434", "m", 2),
            members[1].clone(),
        ]
    );
    assert!(view.fallbacks.is_empty());
    assert_eq!(
        next.providers[1].api_key.as_ref().map(|k| k.expose()),
        Some("k"),
        "each member gets the key of its own server"
    );

    let bad = [
        members[0].clone(),
        member(ProviderKindView::Ollama, "gpu", "m", 1),
    ];
    let err = with_pool(&settings, &bad, &keys).unwrap_err().to_string();
    assert!(err.starts_with("pool member 2: base URL"), "{err}");
    let idle = [member(ProviderKindView::Ollama, "http://a.test", "m", 0)];
    let err = with_pool(&settings, &idle, &keys).unwrap_err().to_string();
    assert_eq!(err, "pool member 1: concurrency: must be at least 1");

    // No members: one server again.
    let back = with_pool(&next, &[], &keys).unwrap();
    assert!(!back.pool);
    assert_eq!(back.providers.len(), 1);
    assert!(SettingsView::of(&back).pool.is_empty());
}

/// A config file of one server, with a comment the window's save keeps.
const FILE: &str = "# My wiki's settings.\n\
    data_dir = \"/wiki\"\n\
    \n\
    # The GPU box.\n\
    [provider]\n\
    kind = \"ollama\" # fast\n\
    base_url = \"http://gpu:11434\"\n\
    model = \"llama3\"\n";

/// What the window says after applying servers: what is used now and the file it is
/// kept in, which then holds them; or why it is for this session only.
#[test]
fn the_window_says_where_applied_servers_are_kept() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    std::fs::write(&path, FILE).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let mut settings =
        Settings::resolve(&Default::default(), &|_| None, Some((&path, &text))).unwrap();
    settings.providers[0].model = "qwen3".to_owned();
    let view = SettingsView::applied(&settings);
    assert_eq!(
        view.applied.as_deref(),
        Some(
            format!(
                "Compiling with ollama:qwen3 at http://gpu:11434; kept in {}",
                path.display()
            )
            .as_str()
        )
    );
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("model = \"qwen3\""), "{text}");

    let mut nowhere = settings.clone();
    nowhere.config_file = Some(std::path::PathBuf::from("/dev/null"));
    let said = SettingsView::applied(&nowhere).applied.unwrap();
    assert!(
        said.starts_with("Compiling with ollama:qwen3 at http://gpu:11434; for this session only:")
            && said.contains("not a regular file"),
        "{said}"
    );
}

/// A check asks once and says what is true now: a server answering 503 (which a compile
/// would ask three more times) is asked one time, and the check says what it answered.
#[tokio::test]
async fn a_connection_check_asks_once() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let asked = std::sync::Arc::new(AtomicUsize::new(0));
    let server = tokio::spawn({
        let asked = std::sync::Arc::clone(&asked);
        async move {
            loop {
                let (mut conn, _) = listener.accept().await.unwrap();
                asked.fetch_add(1, Ordering::SeqCst);
                let mut request = [0u8; 4096];
                let _ = conn.read(&mut request).await;
                let _ = conn
                    .write_all(b"HTTP/1.1 503 Service Unavailable\r\ncontent-length: 7\r\nconnection: close\r\n\r\nloading")
                    .await;
            }
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let env = |k: &str| match k {
        "WIKIMIND_DATA_DIR" => Some(dir.path().display().to_string()),
        "WIKIMIND_BASE_URL" => Some(base.clone()),
        _ => None,
    };
    let settings = Settings::resolve(&Default::default(), &env, None).unwrap();
    assert!(settings.compile.transport_retries > 0, "a compile retries");
    let check = check_connection(&settings).await;
    server.abort();
    assert!(!check.ok, "{check:?}");
    assert!(check.message.contains("503"), "{}", check.message);
    assert_eq!(asked.load(Ordering::SeqCst), 1, "asked once");
}
