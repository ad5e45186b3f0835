//! `cargo run -p wikimind-desktop --example bindings [-- --check]`: writes `ui/src/bindings.ts` from the Rust side, or with
//! `--check` exits 1 when the committed file differs (the drift check CI runs).

use std::path::Path;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let path = root.join(wikimind_desktop::bindings::BINDINGS_PATH);
    let fresh = wikimind_desktop::bindings::typescript();
    let check = std::env::args().any(|a| a == "--check");
    let current = std::fs::read_to_string(&path).unwrap_or_default();
    if check {
        if current == fresh {
            println!("{} is up to date", path.display());
            return;
        }
        eprintln!(
            "{} differs from the Rust types: run `cargo run -p wikimind-desktop --example bindings` and commit it",
            path.display()
        );
        std::process::exit(1);
    }
    if let Err(e) = std::fs::write(&path, fresh) {
        eprintln!("cannot write {}: {e}", path.display());
        std::process::exit(1);
    }
    println!("wrote {}", path.display());
}
