//! The core library's integration tests: real SQLite files, real files and folders, and
//! local servers that speak the Ollama and OpenAI protocols. One test binary (its modules
//! below) so the suite links once; the real-model tier (`builtin_real.rs`, feature
//! `builtin`) is its own.

mod common;

mod asking;
mod graph;
mod identity;
mod ingest;
mod large;
mod lint;
mod llm;
mod names;
mod page_jobs;
mod page_writing;
mod pages;
mod pdf_pages;
mod prompt;
mod seed;
mod watch;
