//! Progress of a long tool call (`ask`, `add_source`) as MCP `notifications/progress`,
//! for a client that asked for it with a progress token: one notification each time the
//! work moves to another stage, so a client that waits on a slow model knows it is alive
//! (clients may keep a call open as long as progress arrives).

use rmcp::model::{ProgressNotificationParam, ProgressToken};
use rmcp::service::RequestContext;
use rmcp::RoleServer;
use tokio::sync::mpsc::{unbounded_channel, UnboundedSender};
use tokio::task::JoinHandle;
use wikimind::queue::JobEvent;
use wikimind::view::{JobProgress, StageView};
use wikimind::JobTarget;

/// Where a tool says how far it got. Cheap to clone; saying something when the client
/// asked for no progress does nothing.
#[derive(Clone, Default)]
pub struct Progress {
    sender: Option<UnboundedSender<String>>,
}

/// Sends what a [`Progress`] says to the client, in order, until the call ends.
pub struct Forwarder {
    task: Option<JoinHandle<()>>,
}

impl Progress {
    /// A progress for this call: notifications go to the client when its request carries a
    /// progress token.
    pub fn for_call(context: &RequestContext<RoleServer>) -> (Progress, Forwarder) {
        let Some(token) = context.meta.get_progress_token() else {
            return (Progress::default(), Forwarder { task: None });
        };
        let (sender, mut messages) = unbounded_channel::<String>();
        let peer = context.peer.clone();
        let task = tokio::spawn(async move {
            let mut last = String::new();
            let mut step = 0.0;
            while let Some(message) = messages.recv().await {
                if message == last {
                    continue;
                }
                step += 1.0;
                let note = ProgressNotificationParam::new(ProgressToken::clone(&token), step)
                    .with_message(message.clone());
                // A client that went away is the call's to notice, not the progress's.
                let _ = peer.notify_progress(note).await;
                last = message;
            }
        });
        (
            Progress {
                sender: Some(sender),
            },
            Forwarder { task: Some(task) },
        )
    }

    /// Tells the client `message` (a repeat of the last one is not sent again).
    pub fn say(&self, message: String) {
        if let Some(sender) = &self.sender {
            let _ = sender.send(message);
        }
    }

    /// A compile job's progress, in words.
    pub fn job(&self, event: &JobEvent) {
        let p = JobProgress::from(event);
        let Some(target) = p.target() else {
            return;
        };
        let what = match target {
            JobTarget::Source(id) => format!("source #{id}"),
            JobTarget::Page(_) => format!("page \"{}\"", p.title.as_deref().unwrap_or("")),
        };
        let doing = match (target, p.stage, p.title.as_deref()) {
            (JobTarget::Source(_), StageView::Compiled, Some(title)) => {
                Some(format!("compiled into the digest \"{title}\""))
            }
            _ => stage(p.stage, &p.provider, p.attempt, p.message.as_deref()),
        };
        if let Some(doing) = doing {
            self.say(format!("{what}: {doing}"));
        }
    }
}

impl Forwarder {
    /// Waits until everything said has been sent: call it after the last clone of the
    /// [`Progress`] is dropped, before the result goes out, so no progress follows it.
    pub async fn finish(self) {
        if let Some(task) = self.task {
            let _ = task.await;
        }
    }
}

/// What a stage of a model call means for the person waiting (`None`: nothing worth
/// saying, such as waiting in the queue).
pub fn stage(
    stage: StageView,
    provider: &str,
    attempt: u32,
    message: Option<&str>,
) -> Option<String> {
    let message = message.filter(|m| !m.is_empty());
    Some(match stage {
        StageView::Queued => return None,
        StageView::Reading => "reading in parts".to_owned(),
        StageView::Prompting => format!("asking {provider} (attempt {})", attempt.max(1)),
        StageView::Receiving => format!("{provider} is answering"),
        StageView::Parsing => "checking the answer".to_owned(),
        StageView::Saving => "saving".to_owned(),
        StageView::Compiled => match message {
            Some(m) => m.to_owned(),
            None => "done".to_owned(),
        },
        StageView::Failed => format!("failed: {}", message.unwrap_or("no reason given")),
        StageView::Cancelled => "stopped".to_owned(),
    })
}
