//! The way in to the [`Host`]: what every command goes through. The wiki opens on a
//! thread of its own beside the window (a database an upgrade must bring up to this build
//! takes seconds at 100,000 pages: its copy and migrations), so the host arrives later:
//! commands wait for it, and the few that have something to say meanwhile (what the app
//! opens on while the database is upgraded, the settings) answer at once.

use std::sync::OnceLock;

use wikimind::config::Settings;
use wikimind::view::{self, OpeningView, SettingsView};

use crate::host::{Host, Opening};

/// The managed state of the app: the host once the wiki is open (or why it could not be
/// opened), what opening did that a person should know, and the settings the app started
/// with.
pub struct Door {
    host: OnceLock<Result<Host, String>>,
    ready: tokio::sync::Notify,
    /// What opening did, and whether the wiki is still being brought up to this version.
    pub opening: Opening,
    settings: Settings,
}

impl Door {
    /// A door with no host yet, for an app started with `settings`.
    pub fn new(settings: Settings, opening: Opening) -> Door {
        Door {
            host: OnceLock::new(),
            ready: tokio::sync::Notify::new(),
            opening,
            settings,
        }
    }

    /// Lets every command in: through `host`, or told `error` (why the wiki could not be
    /// opened). Only the first call counts.
    pub fn open(&self, host: Result<Host, String>) {
        let _ = self.host.set(host);
        self.ready.notify_waiters();
    }

    /// The host, once the wiki is open: waits while it is being opened; the reason it could
    /// not be, as the error.
    pub async fn host(&self) -> Result<&Host, String> {
        loop {
            let ready = self.ready.notified();
            tokio::pin!(ready);
            // Registered before looking, so an `open` in between is not missed.
            ready.as_mut().enable();
            if let Some(host) = self.host.get() {
                return host.as_ref().map_err(Clone::clone);
            }
            ready.await;
        }
    }

    /// What the app opens on: while the database is being upgraded, the line saying so
    /// (with the model's state) at once; else, once the wiki is open, what it holds.
    pub async fn opening_view(&self) -> Result<OpeningView, String> {
        let upgrade = self.opening.database_upgrade();
        let host = match self.host.get() {
            None if upgrade.is_some() => None,
            _ => self.host().await.ok(),
        };
        let Some(host) = host else {
            // Being upgraded, or it could not be opened (the notices say why).
            let notices = self.opening.notices();
            return Ok(
                view::opening_before_the_wiki(&self.settings, &notices, upgrade.as_deref()).await,
            );
        };
        view::opening(
            &host.wiki,
            &host.queue.settings(),
            &self.opening.notices(),
            self.opening.upgrading(),
        )
        .await
        .map_err(|e| e.to_string())
    }

    /// The settings screen's view: the current settings once the wiki is open, the ones the
    /// app started with before.
    pub fn settings_view(&self) -> SettingsView {
        match self.host.get() {
            Some(Ok(host)) => host.settings_view(),
            _ => SettingsView::of(&self.settings),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::time::Duration;

    fn settings() -> Settings {
        let env = |k: &str| match k {
            "WIKIMIND_DATA_DIR" => Some("unused-by-this-test".to_owned()),
            // Nothing listens on the discard port: the model check fails at once.
            "WIKIMIND_BASE_URL" => Some("http://127.0.0.1:9".to_owned()),
            _ => None,
        };
        Settings::resolve(&Default::default(), &env, None).unwrap()
    }

    /// While the database is being upgraded, the window is told so at once and the
    /// library waits; once the host is in, the library is read and the line is gone.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn commands_wait_for_the_wiki_while_the_window_says_it_is_being_upgraded() {
        let opening = Opening::default();
        opening.set_database_upgrade(Some(
            "upgrading the wiki's database from schema 1 to 2".into(),
        ));
        opening.set_upgrading(true);
        let door = Arc::new(Door::new(settings(), opening.clone()));

        let view = door.opening_view().await.unwrap();
        assert_eq!(
            view.database_upgrade.as_deref(),
            Some("upgrading the wiki's database from schema 1 to 2")
        );
        assert!(view.upgrading && !view.first_run);
        assert_eq!(door.settings_view(), SettingsView::of(&settings()));

        let library = tokio::spawn({
            let door = Arc::clone(&door);
            async move {
                let host = door.host().await?;
                host.wiki
                    .library(wikimind::view::LibrarySort::Title, None)
                    .map_err(|e| e.to_string())
            }
        });
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert!(!library.is_finished(), "the library waits for the wiki");

        let host = crate::host::tests::host();
        host.wiki
            .ingest_text("# Tea\n\nTea is brewed.", None)
            .unwrap();
        opening.say("upgraded the wiki's database from schema 1 to 2".into());
        opening.set_database_upgrade(None);
        opening.set_upgrading(false);
        door.open(Ok(host));
        let listed = tokio::time::timeout(Duration::from_secs(10), library)
            .await
            .expect("the library is read once the wiki is open")
            .unwrap()
            .unwrap();
        assert_eq!(listed.counts.sources, 1, "{listed:?}");

        let view = door.opening_view().await.unwrap();
        assert_eq!(view.database_upgrade, None);
        assert!(!view.upgrading && !view.first_run);
        assert_eq!(
            view.notices,
            ["upgraded the wiki's database from schema 1 to 2"]
        );
    }

    /// A wiki that could not be opened: the window says why, and every command is told.
    #[tokio::test]
    async fn a_wiki_that_could_not_be_opened_is_said_to_every_command() {
        let opening = Opening::default();
        opening.set_database_upgrade(Some(
            "upgrading the wiki's database from schema 1 to 2".into(),
        ));
        let door = Door::new(settings(), opening.clone());
        opening.fail("cannot open the wiki in /nowhere: the disk is full".into());
        door.open(Err(
            "cannot open the wiki in /nowhere: the disk is full".into()
        ));

        let error = door.host().await.err().unwrap();
        assert!(error.contains("the disk is full"), "{error}");
        let view = door.opening_view().await.unwrap();
        assert_eq!(view.database_upgrade, None);
        assert!(!view.upgrading && !view.first_run);
        assert_eq!(
            view.notices,
            ["cannot open the wiki in /nowhere: the disk is full; nothing can be read or compiled until the app is opened again"]
        );
    }
}
