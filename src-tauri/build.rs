//! Reads `tauri.conf.json` and `capabilities/` beside this file at build time.
fn main() {
    tauri_build::build()
}
