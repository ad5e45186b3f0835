//! Who holds a lease (a running job, the one watcher): a process on a host, and whether it
//! is certainly gone.

use serde::{Deserialize, Serialize};

/// Who runs a job: a process on a host.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct JobOwner {
    /// The host name.
    pub host: String,
    /// The process id on that host.
    pub pid: u32,
}

impl JobOwner {
    /// This process on this host.
    pub fn this_process() -> JobOwner {
        JobOwner {
            host: host_name(),
            pid: std::process::id(),
        }
    }

    /// Whether this owner is certainly gone: a process of this host that no longer exists.
    /// An owner on another host is never called dead here (its heartbeat tells).
    pub fn is_dead_here(&self, here: &str) -> bool {
        self.host == here && !process_exists(self.pid)
    }
}

/// The name of this host, as recorded in a job's lease.
fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .map(|name| name.trim().to_owned())
        .ok()
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| "localhost".to_owned())
}

/// Whether a process with this id runs on this host. Where that cannot be told (no
/// `/proc`), it is assumed alive, and only a stale heartbeat frees its jobs.
fn process_exists(pid: u32) -> bool {
    let proc_root = std::path::Path::new("/proc");
    if !proc_root.join("self").exists() {
        return true;
    }
    proc_root.join(pid.to_string()).exists()
}
