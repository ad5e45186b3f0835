//! The structured engine's integration tests: table tests, honest repairs, the public
//! JSONTestSuite and JSON-Schema-Test-Suite, pathological inputs, property tests and fuzz
//! regressions. One test binary (its modules below) so the suite links once.

mod engine;
mod honest_repairs;
mod json_schema_suite;
mod json_test_suite;
mod pathological;
mod properties;
mod regressions;
