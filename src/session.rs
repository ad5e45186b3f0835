//! A shell's asking session: the rules a person meets when they ask from a window (or any
//! shell that keeps a conversation open) — one question at a time (asking again stops the
//! one still being answered), and the last answer kept so that saving it never asks the
//! model again. The desktop app holds one; the CLI asks once per process and needs none.

use std::sync::Mutex;

use crate::ask::{AskOptions, AskReport};
use crate::compile::ProgressFn;
use crate::config::Settings;
use crate::llm::CancellationToken;
use crate::wiki::{Wiki, WikiError};

/// Why the last answer could not be saved, or the question not answered.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// The answer asked to be saved is not the last one made (or none was).
    #[error("the answer to {0:?} is no longer kept: ask the question again")]
    NotKept(String),
    /// The last answer has nothing to save: the wiki did not cover the question, or no
    /// valid answer was made.
    #[error("nothing to save: the wiki did not cover the question, or no valid answer was made")]
    NothingToSave,
    /// Asking or saving failed.
    #[error(transparent)]
    Wiki(#[from] WikiError),
}

/// Questions asked in one session (see the module documentation).
#[derive(Debug, Default)]
pub struct AskSession {
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    /// The number of the last question asked (from 1).
    asked: u64,
    /// Stops that question while it is answered.
    running: Option<CancellationToken>,
    /// The last answer made.
    last: Option<AskReport>,
}

impl AskSession {
    /// A session with nothing asked yet.
    pub fn new() -> AskSession {
        AskSession::default()
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        // Plain values: a state a panic left behind is still usable.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Answers `question` from `wiki` (see [`Wiki::ask`]), stopping the question still
    /// being answered, if any. The answer is kept as the last one unless a later question
    /// was asked meanwhile.
    pub async fn ask(
        &self,
        wiki: &Wiki,
        settings: &Settings,
        question: &str,
        options: AskOptions,
        events: &ProgressFn,
    ) -> Result<AskReport, SessionError> {
        let (number, cancel) = {
            let mut state = self.state();
            let token = CancellationToken::new();
            if let Some(before) = state.running.replace(token.clone()) {
                before.cancel();
            }
            state.asked += 1;
            (state.asked, token)
        };
        let asked = wiki
            .ask(settings, question.trim(), options, events, &cancel)
            .await;
        let mut state = self.state();
        if state.asked == number {
            state.running = None;
            if let Ok(report) = &asked {
                state.last = Some(report.clone());
            }
        }
        Ok(asked?)
    }

    /// Stops the question being answered; false when none is.
    pub fn cancel(&self) -> bool {
        match self.state().running.take() {
            Some(token) => {
                token.cancel();
                true
            }
            None => false,
        }
    }

    /// Keeps the last answer, made for `question`, as a page of kind `answer` without
    /// asking the model again, and returns it as it is now (saved again, it stays one page).
    pub fn save_last(&self, wiki: &Wiki, question: &str) -> Result<AskReport, SessionError> {
        let mut state = self.state();
        let report = state
            .last
            .as_mut()
            .filter(|r| r.question == question.trim())
            .ok_or_else(|| SessionError::NotKept(question.to_owned()))?;
        if report.saved.is_none() {
            let saved = wiki
                .save_answer(report)?
                .ok_or(SessionError::NothingToSave)?;
            report.saved = Some(saved.title);
            report.saved_page = Some(saved.page_id);
        }
        Ok(report.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Save keeps the last answer as a page without asking again; saving it twice keeps
    /// one page with one version.
    #[test]
    fn the_last_answer_is_saved_once_as_an_answer_page() {
        use crate::view::{LibrarySort, PageKind};
        let wiki = Wiki::open_in_memory().unwrap();
        let session = AskSession::new();
        let question = "Why is the sky blue?";
        let report = AskReport {
            question: question.into(),
            answer: "Because of scattering.".into(),
            claims: Vec::new(),
            follow_up_questions: Vec::new(),
            pages_read: Vec::new(),
            covered: true,
            saved: None,
            saved_page: None,
            error: None,
            provider: Some("ollama:m".into()),
            usage: crate::compile::Usage {
                calls: 1,
                tokens_in: 1,
                tokens_out: 1,
            },
            warnings: Vec::new(),
            attempts: Vec::new(),
            prompt_version: Some("ask-v1".into()),
        };
        session.state().last = Some(report);
        let saved = session.save_last(&wiki, &format!(" {question}")).unwrap();
        assert_eq!(saved.saved.as_deref(), Some(question));
        let again = session.save_last(&wiki, question).unwrap();
        assert_eq!(again.saved_page, saved.saved_page);
        let lib = wiki.library(LibrarySort::Title, None).unwrap();
        assert_eq!(lib.counts.answers, 1);
        assert_eq!(lib.entries[0].kind, PageKind::Answer);
        let page = wiki.page_view(saved.saved_page.unwrap()).unwrap().unwrap();
        assert_eq!(page.history.len(), 1, "saved once");
        assert_eq!(page.history[0].model.as_deref(), Some("m"));
    }

    #[test]
    fn an_answer_no_longer_kept_or_with_nothing_to_save_is_refused_saying_why() {
        let wiki = Wiki::open_in_memory().unwrap();
        let session = AskSession::new();
        let never = session.save_last(&wiki, "Never asked").unwrap_err();
        assert!(matches!(never, SessionError::NotKept(_)), "{never}");
        assert!(never.to_string().contains("ask the question again"));
        session.state().last = Some(AskReport::empty("Not covered", false));
        let empty = session.save_last(&wiki, "Not covered").unwrap_err();
        assert!(matches!(empty, SessionError::NothingToSave), "{empty}");
        assert!(!session.cancel(), "nothing is being answered");
    }
}
