//! The benches' wiki: N pages and 3N links written by the store's bulk seed
//! (`Store::seed_bulk`, one transaction), made once per size and cached under the target
//! directory, then copied into each bench's data directory.
//!
//! The cache is `$CARGO_TARGET_DIR/bench-seeds/N-KIND-FINGERPRINT/wikimind.db` (the target
//! directory is found from the bench binary when the variable is unset). The fingerprint
//! (`BulkSeed::fingerprint`) hashes the seed, the schema a new wiki gets and the
//! generator's source, so a schema or generator change makes a new copy; the older one of
//! that size and kind is removed then. A copy is made in a `.partial` directory and renamed
//! when whole, so an interrupted seed is never taken for one.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, UNIX_EPOCH};

use wikimind::store::{BulkSeed, Seeded, DATABASE_FILE};
use wikimind::wiki::Wiki;

/// What [`seed_into`] did.
pub struct SeedCopy {
    /// How long it took, seeding included when the cache had no copy.
    pub took: Duration,
    /// The cached database it copied, and whether it was made by this run.
    pub cached: PathBuf,
    /// What the seed wrote, when this run made it.
    pub made: Option<Seeded>,
}

impl SeedCopy {
    /// One line saying where the wiki came from.
    pub fn describe(&self) -> String {
        match &self.made {
            Some(seeded) => format!(
                "seed: {} pages, {} links ({} wanted) written in one transaction and copied in {:.1} s, cached at {}",
                seeded.pages,
                seeded.links,
                seeded.wanted_links,
                self.took.as_secs_f64(),
                self.cached.display()
            ),
            None => format!(
                "seed: copied from the cache at {} in {:.1} s",
                self.cached.display(),
                self.took.as_secs_f64()
            ),
        }
    }
}

/// `bench-seeds` under the target directory.
fn cache_root() -> Result<PathBuf, String> {
    let target = match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => PathBuf::from(dir),
        // target/release/deps/<bench>
        None => std::env::current_exe()
            .map_err(|e| e.to_string())?
            .ancestors()
            .nth(3)
            .ok_or("cannot tell the target directory from the bench's path")?
            .to_path_buf(),
    };
    Ok(target.join("bench-seeds"))
}

/// Writes the wiki `seed` makes into the data directory `dir`, which must hold no wiki
/// yet: a copy of the cached one, made first when the cache has none for this build.
pub fn seed_into(dir: &Path, seed: &BulkSeed) -> Result<SeedCopy, String> {
    let started = Instant::now();
    let fingerprint = seed.fingerprint().map_err(|e| e.to_string())?;
    let root = cache_root()?;
    let kind = if seed.vault.is_some() {
        "notes"
    } else {
        "text"
    };
    let prefix = format!("{}-{kind}-", seed.pages);
    let name = format!("{prefix}{}", &fingerprint[..16]);
    let master = root.join(&name);
    let cached = master.join(DATABASE_FILE);
    let mut made = None;
    if !cached.is_file() {
        std::fs::create_dir_all(&root).map_err(|e| format!("{}: {e}", root.display()))?;
        // Copies of this size and kind made by another schema or generator.
        for entry in std::fs::read_dir(&root).map_err(|e| e.to_string())? {
            let entry = entry.map_err(|e| e.to_string())?;
            let other = entry.file_name().to_string_lossy().into_owned();
            if other.starts_with(&prefix) && !other.contains(".partial") {
                std::fs::remove_dir_all(entry.path()).map_err(|e| e.to_string())?;
            }
        }
        let partial = root.join(format!("{name}.partial-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&partial);
        {
            let wiki = Wiki::open(&partial).map_err(|e| e.to_string())?;
            // A wiki this build makes has its backfills done before anything is in it.
            wiki.run_backfills().map_err(|e| e.to_string())?;
            made = Some(
                wiki.store_for_tests()
                    .seed_bulk(seed)
                    .map_err(|e| e.to_string())?,
            );
        }
        std::fs::rename(&partial, &master).map_err(|e| e.to_string())?;
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let db = dir.join(DATABASE_FILE);
    if db.exists() {
        return Err(format!(
            "{} holds a wiki already: seed an empty directory",
            dir.display()
        ));
    }
    std::fs::copy(&cached, &db).map_err(|e| format!("copying {}: {e}", cached.display()))?;
    Ok(SeedCopy {
        took: started.elapsed(),
        cached,
        made,
    })
}

/// Writes the notes of the first `limit` file sources of `wiki` where their origins say,
/// each with the text, size and modification time the wiki recorded (so the staleness
/// check finds them unchanged by a stat). Returns their paths, by source id.
#[allow(dead_code)] // Only the benches with a vault call it.
pub fn write_notes(wiki: &Wiki, limit: usize) -> Result<Vec<PathBuf>, String> {
    let store = wiki.store_for_tests();
    let mut written = Vec::new();
    for source in store
        .file_sources()
        .map_err(|e| e.to_string())?
        .into_iter()
        .take(limit)
    {
        let path = PathBuf::from(&source.origin);
        let text = store
            .source_text(source.id)
            .map_err(|e| e.to_string())?
            .ok_or("a file source without text")?;
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
        }
        std::fs::write(&path, &text).map_err(|e| format!("{}: {e}", path.display()))?;
        let mtime = source.file_mtime_ns.ok_or("a seeded note without a time")?;
        std::fs::File::options()
            .write(true)
            .open(&path)
            .and_then(|f| f.set_modified(UNIX_EPOCH + Duration::from_nanos(mtime as u64)))
            .map_err(|e| format!("{}: {e}", path.display()))?;
        written.push(path);
    }
    Ok(written)
}
