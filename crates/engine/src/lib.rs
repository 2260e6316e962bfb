//! I/O engines for iolens, and the buffers and files they work on.
//!
//! Every engine lowers an I/O unit to its syscalls and nothing more: the worker loop (in the
//! `run` crate) decides what to issue, takes every timestamp and keeps every statistic, so one
//! loop serves all engines and their numbers mean the same thing. This is the only crate with
//! unsafe code; each unsafe block says why it is sound.
#![deny(missing_docs)]

pub mod buf;
pub mod file;
pub mod libaio;
pub mod null;
pub mod safety;
pub mod sync;
pub mod uring;

use std::io;

pub use buf::BufPool;

/// What an I/O unit does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// Read `len` bytes at `offset` into the buffer.
    Read,
    /// Write `len` bytes at `offset` from the buffer.
    Write,
    /// Discard `len` bytes at `offset`.
    Trim,
    /// fsync the file.
    Fsync,
    /// fdatasync the file.
    Fdatasync,
}

/// One I/O as an engine sees it.
#[derive(Debug, Clone, Copy)]
pub struct IoReq {
    /// Identifies the I/O in its completion (the worker's slot index).
    pub slot: u32,
    /// Index into the engine's file table.
    pub file: u32,
    /// Operation.
    pub op: Op,
    /// Byte offset.
    pub offset: u64,
    /// Length in bytes.
    pub len: u32,
    /// Buffer of at least `len` bytes (unused for trims and syncs).
    pub buf: *mut u8,
}

/// A finished I/O: the slot it was queued with and the result (bytes, or -errno).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Completion {
    /// Slot from the request.
    pub slot: u32,
    /// Bytes transferred, or a negated errno.
    pub res: i64,
}

/// Outcome of queueing an I/O.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Queued {
    /// Done inside the call (synchronous engines): bytes or -errno.
    Done(i64),
    /// Accepted; it will come back from `reap` after `commit`.
    Pending,
}

/// The interface every engine implements (fio's queue/commit/getevents model).
pub trait IoEngine {
    /// Engine name as fio prints it.
    fn name(&self) -> &'static str;

    /// True when `queue` always completes the I/O before returning.
    fn is_sync(&self) -> bool;

    /// Queues one I/O.
    ///
    /// # Safety
    /// `req.buf` must be valid for reads and writes of `req.len` bytes and must stay valid and
    /// untouched by the caller until the I/O's completion is returned (immediately as
    /// `Queued::Done`, or later by `reap`). `req.file` must index the engine's file table.
    unsafe fn queue(&mut self, req: &IoReq) -> Queued;

    /// Passes queued I/Os to the kernel; returns how many were submitted by this call.
    fn commit(&mut self) -> io::Result<u32>;

    /// Waits until at least `min` I/Os completed and stores up to `out.len()` completions.
    fn reap(&mut self, min: u32, out: &mut [Completion]) -> io::Result<u32>;
}

/// Converts a syscall return value (-1 + errno) into bytes or -errno.
pub(crate) fn sys_result(rc: isize) -> i64 {
    if rc < 0 {
        -(io::Error::last_os_error()
            .raw_os_error()
            .unwrap_or(libc::EIO) as i64)
    } else {
        rc as i64
    }
}
