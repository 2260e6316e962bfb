//! Suites: planners that write fio job files for a purpose and read the results back into a
//! table. They produce job text (so everything a suite runs can also be run, and read, as a
//! plain fio job file) and read `RunResult`s; they do no I/O themselves.
#![deny(missing_docs)]

pub mod pts;
pub mod quick;
