//! Running an external tool on a file: a separate process with a time limit and a cap on
//! what it may print, so a PDF that makes the tool loop or balloon is stopped, and a
//! crash of the tool is an error, never ours.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

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
    /// It could not be started or waited for.
    Io(std::io::Error),
}

/// Runs `program` with `args` and `file` as its input path, in the C locale, killing it
/// after `timeout` or once it has printed more than `max_stdout` bytes.
pub(crate) fn run(
    program: &str,
    args: &[&str],
    file: &Path,
    extra_args: &[&str],
    timeout: Duration,
    max_stdout: usize,
) -> Result<ToolOutput, ToolError> {
    let mut child = Command::new(program)
        .args(args)
        .arg(file)
        .args(extra_args)
        .env("LC_ALL", "C")
        .env("LANG", "C")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => ToolError::Missing,
            _ => ToolError::Io(e),
        })?;
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    let out_reader = thread::spawn(move || {
        let mut bytes = Vec::new();
        let over = match stdout {
            Some(pipe) => {
                let cap = max_stdout as u64 + 1;
                let _ = pipe.take(cap).read_to_end(&mut bytes);
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
    let status = loop {
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
    let stdout = stdout.unwrap_or_default();
    let stderr = err_reader.join().unwrap_or_default();
    Ok(ToolOutput {
        success: status.success(),
        code: status.code(),
        stdout,
        stderr,
    })
}
