//! `wikimind-desktop`: starts the app; a message and exit code 1 when it cannot.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() {
    // First, before any thread: the web view's processes inherit it.
    wikimind_desktop::webview::paint_on_the_processor_without_a_gpu();
    if let Err(message) = wikimind_desktop::run() {
        eprintln!("wikimind-desktop: {message}");
        std::process::exit(1);
    }
}
