//! Renderers for iolens results. Every function here is a pure function of the result model
//! (plus, for the header and status line, their own small inputs), so every format is
//! snapshot-tested from deterministic runs.
#![deny(missing_docs)]

pub mod clients;
pub mod fmt;
pub mod json;
pub mod normal;
pub mod status;
pub mod terse;

pub use normal::JobHeader;
