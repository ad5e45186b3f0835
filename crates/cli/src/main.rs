//! The `wikimind` command line: glue between clap and the core library.

fn main() {
    println!("wikimind");
}
