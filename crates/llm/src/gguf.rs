//! Checks a model file before llama.cpp sees it: the GGUF magic, a version this engine
//! reads, a header that parses within bounds, a file long enough for every tensor the header
//! declares, and enough free memory to hold it.
//!
//! llama.cpp aborts the whole process on some damaged files; reading the header here first
//! turns "not a GGUF", "truncated download" and "too big for this machine" into errors that
//! name the file and say what to do. Pure Rust, so it is compiled (and tested) with or
//! without the `builtin` feature.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

/// The four bytes every GGUF file starts with.
pub const GGUF_MAGIC: &[u8; 4] = b"GGUF";

/// Limits that keep a hostile header from making the reader allocate or loop without end.
const MAX_TENSORS: u64 = 1 << 20;
const MAX_KVS: u64 = 1 << 20;
const MAX_DIMS: u32 = 8;
const MAX_KEEP_STRING: u64 = 1 << 16;

/// Why a model file cannot be used. Every message names the file.
#[derive(Debug, thiserror::Error)]
pub enum GgufError {
    /// The file cannot be opened or read.
    #[error("cannot read the model file {}: {source}", .path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the OS said.
        source: std::io::Error,
    },
    /// The file does not start with `GGUF`.
    #[error("{} is not a GGUF model file (it starts with {found}, not \"GGUF\") — the built-in engine needs a .gguf file, e.g. from `bash scripts/fetch-model.sh`", .path.display())]
    NotGguf {
        /// The file.
        path: PathBuf,
        /// The first bytes, for people.
        found: String,
    },
    /// A GGUF version this reader does not know.
    #[error("{} is a GGUF file of version {version}, which the built-in engine does not read (it reads versions 2 and 3)", .path.display())]
    UnsupportedVersion {
        /// The file.
        path: PathBuf,
        /// The version in the header.
        version: u32,
    },
    /// The file ends before the header or the tensor data it declares.
    #[error("{} is truncated: it needs at least {needed} bytes but has {actual} — download it again", .path.display())]
    Truncated {
        /// The file.
        path: PathBuf,
        /// Bytes the header says the file holds, at least.
        needed: u64,
        /// Bytes it has.
        actual: u64,
    },
    /// The header is inconsistent.
    #[error("{} is damaged: {detail} — download it again", .path.display())]
    Malformed {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        detail: String,
    },
    /// The machine lacks the memory to run the model.
    #[error("{} needs about {needed_mb} MB of memory to run but only {available_mb} MB are available — close other programs or use a smaller model", .path.display())]
    TooBig {
        /// The file.
        path: PathBuf,
        /// Estimated need in MB.
        needed_mb: u64,
        /// Available memory in MB.
        available_mb: u64,
    },
}

/// What the header of a valid GGUF file says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GgufInfo {
    /// The GGUF version (2 or 3).
    pub version: u32,
    /// The file size in bytes.
    pub file_size: u64,
    /// Tensors in the file.
    pub tensor_count: u64,
    /// `general.architecture` (e.g. `llama`), when present.
    pub architecture: Option<String>,
    /// `general.name`, when present.
    pub name: Option<String>,
    /// `<architecture>.context_length`: the context the model was trained for.
    pub context_length: Option<u64>,
    /// Whether the file carries a chat template (`tokenizer.chat_template`).
    pub has_chat_template: bool,
    /// Bytes the header and tensor data need (the file may be longer).
    pub needed_size: u64,
}

/// Reads and checks the header of the GGUF file at `path`.
pub fn inspect(path: &Path) -> Result<GgufInfo, GgufError> {
    let io = |source| GgufError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = File::open(path).map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    if meta.is_dir() {
        return Err(GgufError::Io {
            path: path.to_path_buf(),
            source: std::io::Error::other("it is a directory, not a file"),
        });
    }
    let size = meta.len();
    let mut reader = Reader {
        inner: BufReader::with_capacity(1 << 16, file),
        pos: 0,
        size,
        path,
    };
    reader.header()
}

/// Checks that a model of `file_size` bytes (plus `extra` bytes of working memory, e.g. the
/// KV cache) fits in `available` bytes of memory.
pub fn check_fits(
    path: &Path,
    file_size: u64,
    extra: u64,
    available: Option<u64>,
) -> Result<(), GgufError> {
    let Some(available) = available else {
        return Ok(());
    };
    // Weights are memory-mapped, but every page is touched for each token; working buffers
    // add about a tenth on top.
    let needed = file_size + file_size / 10 + extra;
    if needed > available {
        return Err(GgufError::TooBig {
            path: path.to_path_buf(),
            needed_mb: needed.div_ceil(1 << 20),
            available_mb: available >> 20,
        });
    }
    Ok(())
}

/// Memory available to a new program, in bytes (`MemAvailable` in `/proc/meminfo`); `None`
/// where that cannot be read.
pub fn available_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    parse_mem_available(&text)
}

fn parse_mem_available(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line
        .trim_start_matches("MemAvailable:")
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    kb.checked_mul(1024)
}

/// Bytes per block and elements per block of a ggml tensor type; `None` when unknown.
fn type_block(ggml_type: u32) -> Option<(u64, u64)> {
    Some(match ggml_type {
        0 => (4, 1),      // F32
        1 => (2, 1),      // F16
        2 => (18, 32),    // Q4_0
        3 => (20, 32),    // Q4_1
        6 => (22, 32),    // Q5_0
        7 => (24, 32),    // Q5_1
        8 => (34, 32),    // Q8_0
        9 => (36, 32),    // Q8_1
        10 => (84, 256),  // Q2_K
        11 => (110, 256), // Q3_K
        12 => (144, 256), // Q4_K
        13 => (176, 256), // Q5_K
        14 => (210, 256), // Q6_K
        15 => (292, 256), // Q8_K
        16 => (66, 256),  // IQ2_XXS
        17 => (74, 256),  // IQ2_XS
        18 => (98, 256),  // IQ3_XXS
        19 => (50, 256),  // IQ1_S
        20 => (18, 32),   // IQ4_NL
        21 => (110, 256), // IQ3_S
        22 => (82, 256),  // IQ2_S
        23 => (136, 256), // IQ4_XS
        24 => (1, 1),     // I8
        25 => (2, 1),     // I16
        26 => (4, 1),     // I32
        27 => (8, 1),     // I64
        28 => (8, 1),     // F64
        29 => (56, 256),  // IQ1_M
        30 => (2, 1),     // BF16
        _ => return None,
    })
}

struct Reader<'a> {
    inner: BufReader<File>,
    pos: u64,
    size: u64,
    path: &'a Path,
}

impl Reader<'_> {
    fn truncated(&self, needed: u64) -> GgufError {
        GgufError::Truncated {
            path: self.path.to_path_buf(),
            needed,
            actual: self.size,
        }
    }

    fn malformed(&self, detail: impl Into<String>) -> GgufError {
        GgufError::Malformed {
            path: self.path.to_path_buf(),
            detail: detail.into(),
        }
    }

    fn bytes<const N: usize>(&mut self) -> Result<[u8; N], GgufError> {
        let end = self.pos.saturating_add(N as u64);
        if end > self.size {
            return Err(self.truncated(end));
        }
        let mut buf = [0u8; N];
        self.inner
            .read_exact(&mut buf)
            .map_err(|source| GgufError::Io {
                path: self.path.to_path_buf(),
                source,
            })?;
        self.pos = end;
        Ok(buf)
    }

    fn u32(&mut self) -> Result<u32, GgufError> {
        Ok(u32::from_le_bytes(self.bytes::<4>()?))
    }

    fn u64(&mut self) -> Result<u64, GgufError> {
        Ok(u64::from_le_bytes(self.bytes::<8>()?))
    }

    fn skip(&mut self, n: u64) -> Result<(), GgufError> {
        let end = self
            .pos
            .checked_add(n)
            .ok_or_else(|| self.truncated(u64::MAX))?;
        if end > self.size {
            return Err(self.truncated(end));
        }
        let delta = i64::try_from(n).map_err(|_| self.truncated(end))?;
        self.inner
            .seek_relative(delta)
            .map_err(|source| GgufError::Io {
                path: self.path.to_path_buf(),
                source,
            })?;
        self.pos = end;
        Ok(())
    }

    /// A GGUF string: kept when short, skipped otherwise.
    fn string(&mut self) -> Result<Option<String>, GgufError> {
        let len = self.u64()?;
        if len > MAX_KEEP_STRING {
            self.skip(len)?;
            return Ok(None);
        }
        let end = self.pos.saturating_add(len);
        if end > self.size {
            return Err(self.truncated(end));
        }
        let mut buf = vec![0u8; len as usize];
        self.inner
            .read_exact(&mut buf)
            .map_err(|source| GgufError::Io {
                path: self.path.to_path_buf(),
                source,
            })?;
        self.pos = end;
        Ok(Some(String::from_utf8_lossy(&buf).into_owned()))
    }

    /// Skips a value of `ty`, returning it when it is a string or an integer.
    fn value(&mut self, ty: u32, depth: u32) -> Result<Value, GgufError> {
        Ok(match ty {
            0 | 1 | 7 => Value::Int(u64::from(self.bytes::<1>()?[0])),
            2 | 3 => Value::Int(u64::from(u16::from_le_bytes(self.bytes::<2>()?))),
            4 | 5 => Value::Int(u64::from(self.u32()?)),
            6 => {
                self.skip(4)?;
                Value::Other
            }
            10 | 11 => Value::Int(self.u64()?),
            12 => {
                self.skip(8)?;
                Value::Other
            }
            8 => match self.string()? {
                Some(s) => Value::Str(s),
                None => Value::Other,
            },
            9 => {
                if depth > 2 {
                    return Err(self.malformed("arrays nested too deeply"));
                }
                let elem = self.u32()?;
                let count = self.u64()?;
                let fixed = match elem {
                    0 | 1 | 7 => Some(1u64),
                    2 | 3 => Some(2),
                    4..=6 => Some(4),
                    10..=12 => Some(8),
                    _ => None,
                };
                match fixed {
                    Some(width) => {
                        let n = count
                            .checked_mul(width)
                            .ok_or_else(|| self.truncated(u64::MAX))?;
                        self.skip(n)?;
                    }
                    None => {
                        // Each element takes at least 8 bytes: a count larger than the rest
                        // of the file is damage, not a reason to loop.
                        if count > (self.size - self.pos) / 8 + 1 {
                            return Err(self.truncated(self.pos.saturating_add(count)));
                        }
                        for _ in 0..count {
                            self.value(elem, depth + 1)?;
                        }
                    }
                }
                Value::Other
            }
            other => return Err(self.malformed(format!("unknown metadata value type {other}"))),
        })
    }

    fn header(&mut self) -> Result<GgufInfo, GgufError> {
        if self.size < 4 {
            let mut first = Vec::new();
            let _ = self.inner.read_to_end(&mut first);
            return Err(GgufError::NotGguf {
                path: self.path.to_path_buf(),
                found: describe_bytes(&first),
            });
        }
        let magic = self.bytes::<4>()?;
        if &magic != GGUF_MAGIC {
            return Err(GgufError::NotGguf {
                path: self.path.to_path_buf(),
                found: describe_bytes(&magic),
            });
        }
        let version = self.u32()?;
        if !(2..=3).contains(&version) {
            return Err(GgufError::UnsupportedVersion {
                path: self.path.to_path_buf(),
                version,
            });
        }
        let tensor_count = self.u64()?;
        let kv_count = self.u64()?;
        if tensor_count > MAX_TENSORS || kv_count > MAX_KVS {
            return Err(self.malformed(format!(
                "the header declares {tensor_count} tensors and {kv_count} metadata entries"
            )));
        }
        let mut architecture = None;
        let mut name = None;
        let mut has_chat_template = false;
        let mut alignment = 32u64;
        let mut ints: Vec<(String, u64)> = Vec::new();
        for _ in 0..kv_count {
            let key = self.string()?.unwrap_or_default();
            let ty = self.u32()?;
            let value = self.value(ty, 0)?;
            match (key.as_str(), value) {
                ("general.architecture", Value::Str(s)) => architecture = Some(s),
                ("general.name", Value::Str(s)) => name = Some(s),
                ("general.alignment", Value::Int(n)) => alignment = n,
                ("tokenizer.chat_template", _) => has_chat_template = true,
                (k, Value::Int(n)) if k.ends_with(".context_length") => {
                    ints.push((k.to_string(), n))
                }
                _ => {}
            }
        }
        if alignment == 0 || !alignment.is_power_of_two() || alignment > 1 << 20 {
            return Err(self.malformed(format!("alignment {alignment} is not a power of two")));
        }
        let context_length = architecture.as_ref().and_then(|arch| {
            let key = format!("{arch}.context_length");
            ints.iter().find(|(k, _)| *k == key).map(|(_, n)| *n)
        });
        let mut data_end = 0u64;
        for _ in 0..tensor_count {
            self.string()?;
            let n_dims = self.u32()?;
            if n_dims > MAX_DIMS {
                return Err(self.malformed(format!("a tensor has {n_dims} dimensions")));
            }
            let mut elements = 1u64;
            for _ in 0..n_dims {
                elements = elements.saturating_mul(self.u64()?);
            }
            let ty = self.u32()?;
            let offset = self.u64()?;
            let bytes = type_block(ty)
                .map(|(block_bytes, block_elems)| {
                    elements.div_ceil(block_elems).saturating_mul(block_bytes)
                })
                .unwrap_or(0);
            data_end = data_end.max(offset.saturating_add(bytes));
        }
        let data_start = self.pos.div_ceil(alignment).saturating_mul(alignment);
        let needed_size = data_start.saturating_add(data_end);
        if needed_size > self.size {
            return Err(self.truncated(needed_size));
        }
        Ok(GgufInfo {
            version,
            file_size: self.size,
            tensor_count,
            architecture,
            name,
            context_length,
            has_chat_template,
            needed_size,
        })
    }
}

enum Value {
    Int(u64),
    Str(String),
    Other,
}

fn describe_bytes(bytes: &[u8]) -> String {
    if bytes.is_empty() {
        return "nothing (the file is empty)".to_string();
    }
    let shown: String = bytes
        .iter()
        .take(4)
        .map(|&b| {
            if b.is_ascii_graphic() {
                (b as char).to_string()
            } else {
                format!("\\x{b:02x}")
            }
        })
        .collect();
    format!("{shown:?}")
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::io::Write;

    /// Builds a small GGUF v3 file: metadata strings and one Q4_1 tensor of `elements`.
    pub(crate) fn tiny_gguf(elements: u64, data_bytes: usize) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(b"GGUF");
        out.extend_from_slice(&3u32.to_le_bytes());
        out.extend_from_slice(&1u64.to_le_bytes()); // tensors
        out.extend_from_slice(&4u64.to_le_bytes()); // metadata entries
        let string = |out: &mut Vec<u8>, s: &str| {
            out.extend_from_slice(&(s.len() as u64).to_le_bytes());
            out.extend_from_slice(s.as_bytes());
        };
        string(&mut out, "general.architecture");
        out.extend_from_slice(&8u32.to_le_bytes());
        string(&mut out, "llama");
        string(&mut out, "llama.context_length");
        out.extend_from_slice(&4u32.to_le_bytes());
        out.extend_from_slice(&2048u32.to_le_bytes());
        string(&mut out, "tokenizer.ggml.tokens");
        out.extend_from_slice(&9u32.to_le_bytes());
        out.extend_from_slice(&8u32.to_le_bytes());
        out.extend_from_slice(&2u64.to_le_bytes());
        string(&mut out, "a");
        string(&mut out, "b");
        string(&mut out, "tokenizer.chat_template");
        out.extend_from_slice(&8u32.to_le_bytes());
        string(&mut out, "{{ messages }}");
        // One tensor: 2 dims, Q4_1, offset 0.
        string(&mut out, "w");
        out.extend_from_slice(&2u32.to_le_bytes());
        out.extend_from_slice(&(elements / 32).to_le_bytes());
        out.extend_from_slice(&32u64.to_le_bytes());
        out.extend_from_slice(&3u32.to_le_bytes());
        out.extend_from_slice(&0u64.to_le_bytes());
        while !out.len().is_multiple_of(32) {
            out.push(0);
        }
        out.extend(std::iter::repeat_n(0u8, data_bytes));
        out
    }

    fn write(bytes: &[u8]) -> tempfile::NamedTempFile {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(bytes).unwrap();
        f.flush().unwrap();
        f
    }

    #[test]
    fn a_valid_header_is_read() {
        // 64 elements of Q4_1 = 2 blocks of 20 bytes.
        let f = write(&tiny_gguf(64, 40));
        let info = inspect(f.path()).unwrap();
        assert_eq!(info.version, 3);
        assert_eq!(info.architecture.as_deref(), Some("llama"));
        assert_eq!(info.context_length, Some(2048));
        assert!(info.has_chat_template);
        assert_eq!(info.needed_size, info.file_size);
    }

    #[test]
    fn bad_files_name_themselves_and_say_what_is_wrong() {
        let cases: Vec<(&str, Vec<u8>, &str)> = vec![
            (
                "empty",
                vec![],
                "is not a GGUF model file (it starts with nothing",
            ),
            (
                "text",
                b"hello world".to_vec(),
                "is not a GGUF model file (it starts with \"hell\"",
            ),
            ("short", b"GG".to_vec(), "is not a GGUF model file"),
            ("html", b"<!DOCTYPE html>".to_vec(), "not \"GGUF\""),
            ("magic only", b"GGUF".to_vec(), "is truncated"),
            (
                "old version",
                [&b"GGUF"[..], &1u32.to_le_bytes()].concat(),
                "version 1",
            ),
            (
                "cut in the data",
                tiny_gguf(64, 39),
                "is truncated: it needs at least",
            ),
            (
                "cut in the header",
                tiny_gguf(64, 40)[..60].to_vec(),
                "is truncated",
            ),
        ];
        for (what, bytes, expected) in cases {
            let f = write(&bytes);
            let err = inspect(f.path()).unwrap_err().to_string();
            assert!(err.contains(expected), "{what}: {err}");
            assert!(
                err.contains(&f.path().display().to_string()),
                "{what}: {err}"
            );
        }
    }

    #[test]
    fn hostile_counts_fail_without_allocating() {
        let mut bytes = Vec::new();
        bytes.extend_from_slice(b"GGUF");
        bytes.extend_from_slice(&3u32.to_le_bytes());
        bytes.extend_from_slice(&0u64.to_le_bytes());
        bytes.extend_from_slice(&1u64.to_le_bytes());
        // A key whose length is u64::MAX.
        bytes.extend_from_slice(&u64::MAX.to_le_bytes());
        let f = write(&bytes);
        assert!(matches!(
            inspect(f.path()),
            Err(GgufError::Truncated { .. })
        ));

        let mut bytes = Vec::new();
        bytes.extend_from_slice(b"GGUF");
        bytes.extend_from_slice(&3u32.to_le_bytes());
        bytes.extend_from_slice(&u64::MAX.to_le_bytes());
        bytes.extend_from_slice(&0u64.to_le_bytes());
        let f = write(&bytes);
        assert!(matches!(
            inspect(f.path()),
            Err(GgufError::Malformed { .. })
        ));

        // An array of strings claiming 2^60 elements.
        let mut bytes = Vec::new();
        bytes.extend_from_slice(b"GGUF");
        bytes.extend_from_slice(&3u32.to_le_bytes());
        bytes.extend_from_slice(&0u64.to_le_bytes());
        bytes.extend_from_slice(&1u64.to_le_bytes());
        bytes.extend_from_slice(&1u64.to_le_bytes());
        bytes.push(b'k');
        bytes.extend_from_slice(&9u32.to_le_bytes());
        bytes.extend_from_slice(&8u32.to_le_bytes());
        bytes.extend_from_slice(&(1u64 << 60).to_le_bytes());
        let f = write(&bytes);
        assert!(matches!(
            inspect(f.path()),
            Err(GgufError::Truncated { .. })
        ));
    }

    #[test]
    fn directories_and_missing_files_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        assert!(inspect(dir.path())
            .unwrap_err()
            .to_string()
            .contains("directory"));
        let missing = dir.path().join("nope.gguf");
        let err = inspect(&missing).unwrap_err().to_string();
        assert!(err.starts_with("cannot read the model file"), "{err}");
        assert!(err.contains("nope.gguf"), "{err}");
    }

    #[test]
    fn memory_is_checked_against_what_is_available() {
        let p = Path::new("m.gguf");
        assert!(check_fits(p, 100 << 20, 10 << 20, Some(1 << 30)).is_ok());
        assert!(check_fits(p, 100 << 20, 10 << 20, None).is_ok());
        let err = check_fits(p, 1 << 30, 0, Some(512 << 20))
            .unwrap_err()
            .to_string();
        assert!(err.contains("m.gguf needs about 1127 MB"), "{err}");
        assert!(err.contains("only 512 MB are available"), "{err}");
        assert_eq!(
            parse_mem_available("MemTotal: 10 kB\nMemAvailable:    2048 kB\n"),
            Some(2 << 20)
        );
        assert_eq!(parse_mem_available("MemTotal: 10 kB\n"), None);
    }
}
