//! The narrow context every command runs against: the open wiki, its job runner, where
//! API keys go, and the questions asked from the window. Commands see a [`Host`], never an
//! `AppHandle`, so the same bodies run under the window and in tests.

use std::sync::Arc;

use wikimind::ask::AskOptions;
use wikimind::compile::Progress;
use wikimind::config::{Overrides, Settings};
use wikimind::llm::{KeyStore, SystemKeyring};
use wikimind::queue::JobRunner;
use wikimind::session::AskSession;
use wikimind::view::{self, AnswerView, AskProgress, PoolMemberForm, ProviderForm, SettingsView};
use wikimind::watch::WatchKeeper;
use wikimind::wiki::Wiki;
use wikimind::SourceId;

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
    /// Questions asked from the window.
    pub asking: Asking,
    /// The saved watched folders, watched while the app is open.
    pub watch: WatchKeeper,
}

/// What opening the wiki did that a person should know (an upgrade, what a backfill
/// changed), and whether the data is still being brought up to this version: an upgrade's
/// backfills run on a thread beside the window, whose queue starts once they are done.
/// Cheap to clone; every clone is the same.
#[derive(Debug, Clone, Default)]
pub struct Opening {
    notices: Arc<std::sync::Mutex<Vec<String>>>,
    upgrading: Arc<std::sync::atomic::AtomicBool>,
    database_upgrade: Arc<std::sync::Mutex<Option<String>>>,
}

impl Opening {
    /// While the database is being upgraded (the window opens before it): what is being
    /// done ([`Wiki::upgrade_ahead`]).
    pub fn database_upgrade(&self) -> Option<String> {
        self.database_upgrade
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// Says what upgrading the database is doing; `None` once it is done.
    pub fn set_database_upgrade(&self, line: Option<String>) {
        *self
            .database_upgrade
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = line;
    }

    /// Says that the wiki could not be opened (`why`, with its causes): nothing is being
    /// upgraded any more, and nothing can be read.
    pub fn fail(&self, why: String) {
        self.say(format!(
            "{why}; nothing can be read or compiled until the app is opened again"
        ));
        self.set_database_upgrade(None);
        self.set_upgrading(false);
    }

    /// The notices so far, oldest first.
    pub fn notices(&self) -> Vec<String> {
        self.notices
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// Adds a notice.
    pub fn say(&self, notice: String) {
        self.notices
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(notice);
    }

    /// Whether the backfills are running.
    pub fn upgrading(&self) -> bool {
        self.upgrading.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Says whether the backfills are running.
    pub fn set_upgrading(&self, upgrading: bool) {
        self.upgrading
            .store(upgrading, std::sync::atomic::Ordering::SeqCst);
    }
}

/// Questions asked from the window: where an answer's progress goes, and the session's
/// rules (one question at a time, the last answer kept to save), which are the core's.
pub struct Asking {
    events: Arc<dyn Fn(AskProgress) + Send + Sync>,
    session: AskSession,
}

impl Asking {
    /// Questions whose progress goes to `events`.
    pub fn new(events: impl Fn(AskProgress) + Send + Sync + 'static) -> Asking {
        Asking {
            events: Arc::new(events),
            session: AskSession::new(),
        }
    }
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

    /// Uses `form` as the primary provider from now on, kept in the config file.
    pub fn apply_provider(&self, form: &ProviderForm) -> Result<SettingsView, String> {
        let next = view::with_primary(&self.queue.settings(), form, &*self.keys)
            .map_err(|e| e.to_string())?;
        self.queue.set_settings(next);
        Ok(SettingsView::applied(&self.queue.settings()))
    }

    /// Spreads compiles over `members` from now on (none: no pool), kept in the config
    /// file.
    pub fn apply_pool(&self, members: &[PoolMemberForm]) -> Result<SettingsView, String> {
        let next = view::with_pool(&self.queue.settings(), members, &*self.keys)
            .map_err(|e| e.to_string())?;
        self.queue.set_settings(next);
        Ok(SettingsView::applied(&self.queue.settings()))
    }

    /// Queues `sources` (all pending, failed and stale ones when the list is empty), with
    /// `model` instead of the current one when given; returns how many jobs were queued.
    pub fn compile(
        &self,
        sources: &[SourceId],
        model: Option<&str>,
    ) -> wikimind::wiki::Result<u32> {
        let queued = if sources.is_empty() {
            self.queue.enqueue_pending()?
        } else {
            self.queue.enqueue(sources, model)?.len()
        };
        Ok(u32::try_from(queued).unwrap_or(u32::MAX))
    }

    /// Answers `question` from the wiki's pages with the current settings, its progress
    /// sent to the window as it streams; with `save`, keeps the answer as a page of kind
    /// `answer`. Asking again stops a question still being answered.
    pub async fn ask(&self, question: &str, save: bool) -> Result<AnswerView, String> {
        let question = question.trim();
        let events = {
            let (send, asked) = (Arc::clone(&self.asking.events), question.to_owned());
            move |p: Progress| send(AskProgress::of(&asked, &p))
        };
        let settings = self.queue.settings();
        let report = self
            .asking
            .session
            .ask(
                &self.wiki,
                &settings,
                question,
                AskOptions { save },
                &events,
            )
            .await
            .map_err(|e| e.to_string())?;
        self.wiki.answer_view(&report).map_err(|e| e.to_string())
    }

    /// Stops the question being answered; false when none is.
    pub fn cancel_ask(&self) -> bool {
        self.asking.session.cancel()
    }

    /// Keeps the last answer, made for `question`, as a page of kind `answer`, without
    /// asking the model again; the answer as it is now (saved again it stays one page).
    pub fn save_answer(&self, question: &str) -> Result<AnswerView, String> {
        let report = self
            .asking
            .session
            .save_last(&self.wiki, question)
            .map_err(|e| e.to_string())?;
        self.wiki.answer_view(&report).map_err(|e| e.to_string())
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

/// The command bodies without a window: a [`Host`] over an in-memory wiki, a runner that is
/// never started and keys in memory, as the commands see them.
#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::sync::Mutex;
    use wikimind::llm::MemoryKeyStore;
    use wikimind::view::{ProviderKindView, StageView};

    /// A host over a wiki in memory, whose runner is never started.
    pub(crate) fn host() -> Host {
        let wiki = Wiki::open_in_memory().unwrap();
        let overrides = Overrides {
            data_dir: Some("unused-by-this-test".into()),
            ..Overrides::default()
        };
        let settings = Settings::resolve(&overrides, &|_| None, None).unwrap();
        let keys: Arc<dyn KeyStore> = Arc::new(MemoryKeyStore::new());
        let queue = JobRunner::new(wiki.clone(), settings, Arc::clone(&keys), Box::new(|_| {}));
        let watch = WatchKeeper::new(
            wiki.clone(),
            queue.clone(),
            wikimind::watch::WatchOptions::default(),
            Box::new(|_| {}),
        );
        Host {
            wiki,
            queue,
            keys,
            asking: Asking::new(|_| {}),
            watch,
        }
    }

    /// A question no page covers is answered at once, with no model call (the settings
    /// name no server that answers) and nothing to save.
    #[tokio::test]
    async fn a_question_the_wiki_does_not_cover_is_said_so_without_a_model() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let h = Host {
            asking: Asking::new({
                let seen = Arc::clone(&seen);
                move |p| seen.lock().unwrap().push(p)
            }),
            ..host()
        };
        let view = h.ask("  What is a quark? ", false).await.unwrap();
        assert!(!view.covered);
        assert_eq!(view.question, "What is a quark?");
        assert!(view.html.contains("does not cover"), "{}", view.html);
        assert!(!view.can_save && view.claims.is_empty());
        assert!(seen.lock().unwrap().is_empty(), "no model was asked");
        assert!(!h.cancel_ask(), "nothing is being answered any more");
        let refused = h.save_answer("What is a quark?").unwrap_err();
        assert!(refused.contains("nothing to save"), "{refused}");
        let unknown = h.save_answer("Something never asked").unwrap_err();
        assert!(unknown.contains("ask the question again"), "{unknown}");
    }

    fn openai(base_url: &str) -> ProviderForm {
        ProviderForm {
            kind: ProviderKindView::Openai,
            base_url: base_url.into(),
            model: "m".into(),
        }
    }

    #[test]
    fn a_saved_key_belongs_to_its_server_as_the_settings_screen_shows() {
        let h = host();
        let a = openai("http://127.0.0.1:1/v1");
        let b = openai("http://127.0.0.1:2/v1");
        assert!(h
            .apply_provider(&a)
            .unwrap()
            .provider
            .base_url
            .ends_with(":1/v1"));
        assert!(!h.settings_view().has_api_key);

        assert!(h.save_api_key(&a, "sk-for-a").unwrap().has_api_key);
        let on_b = h.apply_provider(&b).unwrap();
        assert!(!on_b.has_api_key, "server B has no key of its own");
        assert!(h.queue.settings().providers[0].api_key.is_none());
        assert!(
            h.apply_provider(&a).unwrap().has_api_key,
            "A's key is still A's"
        );
    }

    #[test]
    fn a_bad_server_address_is_refused_and_the_settings_stay() {
        let h = host();
        let before = h.settings_view();
        let error = h.apply_provider(&openai("not a url")).unwrap_err();
        assert!(error.contains("not a url"), "{error}");
        assert_eq!(h.settings_view(), before);
    }

    #[test]
    fn compile_with_no_sources_queues_every_pending_one_and_with_a_list_those() {
        let h = host();
        let first = h.wiki.ingest_text_view("# One\n\nThe first note.", None);
        h.wiki.ingest_text_view("# Two\n\nThe second note.", None);
        assert_eq!(h.compile(&[], None).unwrap(), 2);
        let jobs = wikimind::view::job_list(&h.queue).unwrap();
        assert_eq!(jobs.len(), 2);
        assert!(
            jobs.iter().all(|j| j.stage == StageView::Queued),
            "{jobs:?}"
        );

        let one = first.added[0].source_id;
        assert_eq!(h.compile(&[one], Some("another-model")).unwrap(), 1);
    }

    /// What the queue screen shows of a page job, and the `cancel_page` command's call.
    #[test]
    fn a_page_job_is_listed_by_its_title_and_cancelled_by_its_page() {
        use wikimind::contract::CompilationResult;
        use wikimind::store::{fixtures, SaveArticle};
        use wikimind::view::JobKindView;

        let h = host();
        // Two sources whose digests are both about tea: their page waits to be written.
        for text in ["# Tea\n\nGreen tea.", "# Tea\n\nBlack tea."] {
            let added = h.wiki.ingest_text_view(text, None);
            let result = CompilationResult {
                title: "Tea".into(),
                summary: "About tea.".into(),
                key_claims: Vec::new(),
                concepts: Vec::new(),
                backlink_suggestions: Vec::new(),
                open_questions: Vec::new(),
                article_body: text.into(),
            };
            h.wiki
                .store_for_tests()
                .save_article(&SaveArticle {
                    ..fixtures::digest(added.added[0].source_id, &result)
                })
                .unwrap();
        }
        let page = h.wiki.store_for_tests().find_page("Tea").unwrap().unwrap();
        assert_eq!(h.queue.enqueue_stale_pages().unwrap(), 1);
        let jobs = wikimind::view::job_list(&h.queue).unwrap();
        assert_eq!(jobs.len(), 1);
        let job = &jobs[0];
        assert_eq!(job.kind, JobKindView::Page);
        assert_eq!((job.page_id, job.source_id), (Some(page), None));
        assert_eq!(job.title.as_deref(), Some("Tea"));
        assert_eq!(job.stage, StageView::Queued);

        assert!(h.queue.cancel_page(page).unwrap());
        let jobs = wikimind::view::job_list(&h.queue).unwrap();
        assert_eq!(jobs[0].stage, StageView::Cancelled);
        assert_eq!(jobs[0].title.as_deref(), Some("Tea"));
        assert!(!h.queue.cancel_page(page).unwrap(), "nothing left to stop");
    }

    /// The watched-folder commands' calls: a saved folder is listed (waiting while no
    /// keeper runs), a path that is not a folder is refused, a removed one goes.
    #[test]
    fn watched_folders_are_saved_listed_and_removed_by_the_commands() {
        use wikimind::watch::WatchStateView;
        let h = host();
        let dir = tempfile::tempdir().unwrap();
        let view = h.watch.add(dir.path()).unwrap();
        assert_eq!(view.folders.len(), 1);
        assert_eq!(view.folders[0].state, WatchStateView::Waiting);
        let file = dir.path().join("note.md");
        std::fs::write(&file, "# Note").unwrap();
        let refused = h.watch.add(&file).unwrap_err().to_string();
        assert!(refused.contains("not a folder"), "{refused}");
        let path = view.folders[0].path.clone();
        assert!(h
            .watch
            .remove(std::path::Path::new(&path))
            .unwrap()
            .folders
            .is_empty());
        assert!(h.watch.view().unwrap().folders.is_empty());
    }
}
