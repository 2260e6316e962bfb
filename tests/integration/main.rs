//! The one integration-test binary of iolens: command line behaviour, output formats from
//! deterministic runs, compatibility with fio's JSON, and runs against real files, devices
//! and kernel interfaces (each of those detects what it needs and skips with a message).

mod advise;
mod calibrate;
mod cli;
mod cluster;
mod cmdprio;
mod common;
mod conditions;
mod docs;
mod engines;
mod exits;
mod explain;
mod faults;
mod fio342;
mod fio_compat;
mod formats;
mod logs;
mod powercut;
mod prices;
mod pts;
mod report;
mod runtime;
mod safety;
mod snapshots;
mod suites;
mod train;
mod verify;
mod verify_fio;
mod workloads;
