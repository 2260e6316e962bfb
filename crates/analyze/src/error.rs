//! The one error type of this crate. Messages are written for people: what was wrong, what is
//! allowed, and what to do, because they end up verbatim on the command line.

use thiserror::Error;

/// Everything that can go wrong while parsing volume specs, instance names or result files.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum AnalyzeError {
    /// A `--volume` spec names a type we do not model. The message lists every known type.
    #[error("unknown volume type '{given}'; known types: {known}")]
    UnknownVolumeType {
        /// The type as written.
        given: String,
        /// Every known type with its fields, e.g. `gp2 (size), gp3 (iops, throughput, size)`.
        known: String,
    },
    /// A `--volume` spec has a bad field or value; the message says what is allowed.
    #[error("bad volume spec '{spec}': {reason}")]
    InvalidVolume {
        /// The whole spec as given.
        spec: String,
        /// What is wrong and what range is allowed.
        reason: String,
    },
    /// A `--volume` spec's size is outside its type's range; the message says the range.
    #[error("bad volume spec '{spec}': {reason}")]
    VolumeSize {
        /// The whole spec as given.
        spec: String,
        /// The size given and the range allowed.
        reason: String,
    },
    /// An `--instance` name we do not know.
    #[error("unknown instance type '{given}'{suggestion}; run `iolens models` to list all known instances")]
    UnknownInstance {
        /// The name as written.
        given: String,
        /// `"; did you mean r6i.8xlarge, r6i.4xlarge?"` or empty.
        suggestion: String,
    },
    /// The input is not a fio or iolens JSON result.
    #[error("not a fio/iolens JSON result: {0}")]
    NotAResult(String),
    /// `advise` cannot work with what it was given; the message says what to give.
    #[error("{0}")]
    Advise(String),
    /// More data than one volume of a type holds (sizing; a stripe may hold it).
    #[error("{0}")]
    TooBig(String),
    /// A price file, region or discount that cannot be used; the message says what to give.
    #[error("{0}")]
    Prices(String),
    /// A result that cannot be a latency model, or a latency model file that cannot be used;
    /// the message says why and what to give.
    #[error("{0}")]
    Calibrate(String),
    /// The bundled model data failed to parse (a bug in `data/models.json`).
    #[error("data/models.json is invalid: {0}")]
    BadModelData(String),
    /// Volume types of one's own could not be added to the model data (what is wrong).
    #[error("{0}")]
    ExtraModels(String),
}
