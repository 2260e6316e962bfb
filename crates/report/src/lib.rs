//! Renderers for iolens results: result model in, text or HTML out. Every function here is a
//! pure function of its input (the result model, or for the header a [`JobHeader`] per job),
//! so every format is snapshot-tested from deterministic runs; nothing here reads a device,
//! /proc or sysfs. The HTML report ([`html`]) draws its charts ([`charts`]) as SVG written
//! directly ([`svg`]); [`input`] builds its runs from a run's result model or from saved fio
//! and iolens JSON ([`pts`] a PTS result, [`fiolog`] fio's log files).
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod charts;
pub mod clients;
pub mod conditions;
pub mod error;
pub mod fio;
pub mod fiolog;
pub mod fmt;
pub mod html;
pub mod input;
pub mod json;
pub mod normal;
pub mod pts;
pub mod svg;
pub mod terse;

pub use normal::JobHeader;
