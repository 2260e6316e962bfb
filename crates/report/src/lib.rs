//! Renderers for iolens results. Every function here is a pure function of the result model
//! (plus, for the header and status line, their own small inputs), so every format is
//! snapshot-tested from deterministic runs. The HTML report ([`html`]) draws its charts
//! ([`charts`]) as SVG written directly ([`svg`]); [`input`] reads fio and iolens JSON for it
//! ([`pts`] a saved PTS result, [`fiolog`] fio's log files) and [`machine`] is the one place that reads /proc and sysfs.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod charts;
pub mod clients;
pub mod fiolog;
pub mod fmt;
pub mod html;
pub mod input;
pub mod json;
pub mod machine;
pub mod normal;
pub mod pts;
pub mod status;
pub mod svg;
pub mod terse;

pub use normal::JobHeader;
