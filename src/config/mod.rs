//! Settings: defaults, then the config file, then `WIKIMIND_*` environment variables.
