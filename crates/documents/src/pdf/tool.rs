//! Running an external tool on a file: a separate process with a time limit, a cap on
//! what it may print and a cap on its memory, so a PDF that makes the tool loop or balloon
//! is stopped, and a crash of the tool is an error, never ours.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use crate::Limits;

/// What a tool printed and how it ended.
pub(crate) struct ToolOutput {
    /// Whether it exited with status 0.
    pub success: bool,
    /// Its exit code, when it exited rather than being killed by a signal.
    pub code: Option<i32>,
    /// Its standard output.
    pub stdout: Vec<u8>,
    /// Its standard error (the first 64 KB).
    pub stderr: String,
}

/// Why a tool gave no output.
pub(crate) enum ToolError {
    /// The program is not installed (not on `PATH`).
    Missing,
    /// It ran past the time limit and was killed.
    TimedOut,
    /// It printed more than the cap allows and was killed.
    TooMuchOutput,
    /// It ran out of the memory it may take ([`Limits::max_tool_memory`]).
    OutOfMemory,
    /// It could not be started or waited for.
    Io(std::io::Error),
}

/// Runs `program` with `args` and `file` as its input path, in the C locale, with at most
/// [`Limits::max_tool_memory`] of address space, killing it after [`Limits::timeout`] or
/// once it has printed more than `max_stdout` bytes.
pub(crate) fn run(
    program: &str,
    args: &[&str],
    file: &Path,
    extra_args: &[&str],
    limits: &Limits,
    max_stdout: usize,
) -> Result<ToolOutput, ToolError> {
    run_counting(
        program,
        args,
        file,
        extra_args,
        limits,
        max_stdout,
        b"",
        &mut |_| {},
    )
}

/// [`run`], also counting the times `marker` appears in what the tool prints as it prints
/// it (a page's end, say), and calling `on_count` with the count as it grows (on the
/// calling thread, at most every few milliseconds). An empty marker counts nothing.
#[allow(clippy::too_many_arguments)]
pub(crate) fn run_counting(
    program: &str,
    args: &[&str],
    file: &Path,
    extra_args: &[&str],
    limits: &Limits,
    max_stdout: usize,
    marker: &'static [u8],
    on_count: &mut dyn FnMut(u32),
) -> Result<ToolOutput, ToolError> {
    let timeout = limits.timeout;
    let mut command = Command::new(program);
    command
        .args(args)
        .arg(file)
        .args(extra_args)
        .env("LC_ALL", "C")
        .env("LANG", "C")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cap_memory(&mut command, limits.max_tool_memory);
    let mut child = command.spawn().map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => ToolError::Missing,
        _ => ToolError::Io(e),
    })?;
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    let counted = Arc::new(AtomicU32::new(0));
    let count = Arc::clone(&counted);
    let out_reader = thread::spawn(move || {
        let mut bytes = Vec::new();
        let over = match stdout {
            Some(pipe) => {
                let cap = max_stdout as u64 + 1;
                let mut pipe = pipe.take(cap);
                let mut chunk = vec![0u8; 64 * 1024];
                let mut seen = 0u32;
                loop {
                    match pipe.read(&mut chunk) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => {
                            if !marker.is_empty() {
                                // The new bytes, and enough before them for a marker cut
                                // between two reads.
                                let from = bytes.len().saturating_sub(marker.len() - 1);
                                bytes.extend_from_slice(&chunk[..n]);
                                let found = bytes[from..]
                                    .windows(marker.len())
                                    .filter(|w| *w == marker)
                                    .count();
                                seen = seen.saturating_add(found as u32);
                                count.store(seen, Ordering::Relaxed);
                            } else {
                                bytes.extend_from_slice(&chunk[..n]);
                            }
                        }
                    }
                }
                bytes.len() > max_stdout
            }
            None => false,
        };
        (bytes, over)
    });
    let err_reader = thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(pipe) = stderr {
            let mut pipe = pipe;
            let _ = (&mut pipe).take(64 * 1024).read_to_end(&mut bytes);
            // Drain the rest so the tool never blocks on a full pipe.
            let _ = std::io::copy(&mut pipe, &mut std::io::sink());
        }
        String::from_utf8_lossy(&bytes).into_owned()
    });
    let deadline = Instant::now() + timeout;
    let mut out_reader = Some(out_reader);
    let mut stdout = None;
    let mut reported = 0;
    let status = loop {
        let now_counted = counted.load(Ordering::Relaxed);
        if now_counted != reported {
            reported = now_counted;
            on_count(reported);
        }
        if out_reader
            .as_ref()
            .is_some_and(|reader| reader.is_finished())
        {
            let (bytes, over) = out_reader
                .take()
                .map(|reader| reader.join().unwrap_or_default())
                .unwrap_or_default();
            if over {
                let _ = child.kill();
                let _ = child.wait();
                let _ = err_reader.join();
                return Err(ToolError::TooMuchOutput);
            }
            stdout = Some(bytes);
        }
        match child.try_wait() {
            Ok(Some(status)) if out_reader.is_none() => break status,
            Ok(_) => {}
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(ToolError::Io(e));
            }
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            if let Some(reader) = out_reader.take() {
                let _ = reader.join();
            }
            let _ = err_reader.join();
            return Err(ToolError::TimedOut);
        }
        thread::sleep(Duration::from_millis(5));
    };
    let now_counted = counted.load(Ordering::Relaxed);
    if now_counted != reported {
        on_count(now_counted);
    }
    let stdout = stdout.unwrap_or_default();
    let stderr = err_reader.join().unwrap_or_default();
    if !status.success() && ran_out_of_memory(&stderr) {
        return Err(ToolError::OutOfMemory);
    }
    Ok(ToolOutput {
        success: status.success(),
        code: status.code(),
        stdout,
        stderr,
    })
}

/// Whether a tool that failed said it could not get memory: Poppler's "Out of memory", an
/// uncaught `std::bad_alloc`, or the C library's words for a failed allocation.
fn ran_out_of_memory(stderr: &str) -> bool {
    [
        "Out of memory",
        "out of memory",
        "bad_alloc",
        "memory exhausted",
        "Cannot allocate memory",
    ]
    .iter()
    .any(|words| stderr.contains(words))
}

/// Caps the address space of the process `command` starts at `bytes` (`RLIMIT_AS`), so its
/// allocations fail there instead of taking the machine's memory. Elsewhere than unix the
/// time limit alone bounds the tool.
#[cfg(unix)]
fn cap_memory(command: &mut Command, bytes: u64) {
    use std::os::unix::process::CommandExt;
    let limit = libc::rlimit {
        rlim_cur: bytes as libc::rlim_t,
        rlim_max: bytes as libc::rlim_t,
    };
    // SAFETY: the closure runs in the child between fork and exec, where only
    // async-signal-safe calls are allowed; it makes one, `setrlimit`, on a value copied in
    // before the fork, and allocates nothing.
    unsafe {
        command.pre_exec(move || {
            if libc::setrlimit(libc::RLIMIT_AS, &limit) == 0 {
                Ok(())
            } else {
                Err(std::io::Error::last_os_error())
            }
        });
    }
}

#[cfg(not(unix))]
fn cap_memory(_command: &mut Command, _bytes: u64) {}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// `dd` with a block far larger than the cap must fail to get it: the cap reaches the
    /// tool, and its failure reads as running out of memory, not as a damaged file.
    #[test]
    fn a_tool_that_wants_more_memory_than_the_cap_is_refused_as_out_of_memory() {
        let limits = Limits {
            max_tool_memory: 64 * 1024 * 1024,
            ..Limits::default()
        };
        let out = run(
            "dd",
            &["bs=512M", "count=1", "if=/dev/zero", "of=/dev/null"],
            Path::new("status=none"),
            &[],
            &limits,
            1024,
        );
        assert!(
            matches!(out, Err(ToolError::OutOfMemory)),
            "the cap did not hold"
        );
        // The same tool under the default cap gets its block.
        let out = run(
            "dd",
            &["bs=16M", "count=1", "if=/dev/zero", "of=/dev/null"],
            Path::new("status=none"),
            &[],
            &Limits::default(),
            1024,
        );
        assert!(
            out.is_ok_and(|o| o.success),
            "a modest tool failed under the default cap"
        );
    }
}
