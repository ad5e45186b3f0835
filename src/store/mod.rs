//! SQLite store: connection setup, migrations, sources, articles, links, compile log, jobs.
