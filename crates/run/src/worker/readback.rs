//! Verification reads inside the job: the `verify_backlog` checks while writing and the
//! read-back after the write phase, issued through the same engine and booked as reads.

use iolens_engine::{Backend, Engine, IoReq, Op};
use iolens_job::Ddir;

use super::{Unit, Worker};

impl Worker<'_> {
    /// Reads back what was written since the last `verify_backlog` check.
    pub(super) fn verify_backlog<B: Backend>(&mut self, eng: &mut Engine<B>) {
        self.drain(eng);
        let blocks = self
            .verify
            .as_mut()
            .map(|v| v.take_backlog())
            .unwrap_or_default();
        self.verify_blocks(eng, blocks);
    }

    /// Reads back blocks and checks them (booked as reads, as fio does).
    pub(super) fn verify_blocks<B: Backend>(
        &mut self,
        eng: &mut Engine<B>,
        blocks: Vec<(u32, u64, u32)>,
    ) {
        let mut it = blocks.into_iter();
        loop {
            while self.inflight < self.depth
                && !self.free.is_empty()
                && self.error.is_none()
                && !self.stopped()
            {
                if self.verify.as_ref().is_some_and(|v| v.fatal_hit()) {
                    break;
                }
                let Some((file, offset, len)) = it.next() else {
                    break;
                };
                let Some(slot) = self.free.pop() else {
                    break;
                };
                self.units[slot.index() as usize] = Unit {
                    ddir: 0,
                    file,
                    offset,
                    len,
                    start: self.t_last,
                    verify_read: true,
                    ..Unit::default()
                };
                let req = IoReq {
                    file,
                    op: Op::Read,
                    offset,
                    len,
                    buf_off: 0,
                    ioprio: 0,
                };
                if !self.queue(eng, slot, req, Ddir::Read) {
                    break;
                }
            }
            if !self.commit(eng) || self.inflight == 0 {
                break;
            }
            if !self.reap(eng, 1) {
                break;
            }
            self.tick();
        }
        self.drain(eng);
    }
}
