//! Aligned I/O buffers: one slot per possible in-flight I/O, aligned for O_DIRECT.
//!
//! The worker hands a slot's pointer to an engine when it queues an I/O and does not touch
//! or reuse that slot until the completion comes back; that is the whole lifetime contract.

use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::io;
use std::ptr::NonNull;

/// A pool of equally sized, aligned buffers.
pub struct BufPool {
    ptr: NonNull<u8>,
    layout: Layout,
    slot_size: usize,
    slots: usize,
}

// SAFETY: the pool owns its allocation; sharing it between threads is up to the owner, and
// slot access goes through &mut self or raw pointers whose use is governed by the engines'
// safety contracts.
unsafe impl Send for BufPool {}

impl std::fmt::Debug for BufPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BufPool")
            .field("slots", &self.slots)
            .field("slot_size", &self.slot_size)
            .finish()
    }
}

impl BufPool {
    /// Allocates `slots` buffers of at least `size` bytes, each aligned to `align` (a power of
    /// two, at least the page size for O_DIRECT).
    pub fn new(slots: usize, size: usize, align: usize) -> io::Result<Self> {
        let align = align.max(4096).next_power_of_two();
        let slot_size = size.max(1).div_ceil(align) * align;
        let total = slot_size
            .checked_mul(slots.max(1))
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "buffer pool too large"))?;
        let layout = Layout::from_size_align(total, align)
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e.to_string()))?;
        // SAFETY: layout has non-zero size.
        let ptr = unsafe { alloc_zeroed(layout) };
        let ptr = NonNull::new(ptr).ok_or_else(|| {
            io::Error::new(io::ErrorKind::OutOfMemory, "cannot allocate I/O buffers")
        })?;
        Ok(BufPool {
            ptr,
            layout,
            slot_size,
            slots: slots.max(1),
        })
    }

    /// Number of slots.
    pub fn slots(&self) -> usize {
        self.slots
    }

    /// Size of each slot.
    pub fn slot_size(&self) -> usize {
        self.slot_size
    }

    /// Raw pointer to slot `i` for an engine.
    pub fn ptr(&self, i: usize) -> *mut u8 {
        assert!(i < self.slots);
        // SAFETY: i < slots, so the offset stays inside the allocation.
        unsafe { self.ptr.as_ptr().add(i * self.slot_size) }
    }

    /// Slot `i` as a mutable slice; the caller must not have it in flight.
    pub fn slot_mut(&mut self, i: usize) -> &mut [u8] {
        assert!(i < self.slots);
        // SAFETY: in bounds; &mut self guarantees no other safe reference exists.
        unsafe { std::slice::from_raw_parts_mut(self.ptr(i), self.slot_size) }
    }

    /// Slot `i` as a slice.
    pub fn slot(&self, i: usize) -> &[u8] {
        assert!(i < self.slots);
        // SAFETY: in bounds.
        unsafe { std::slice::from_raw_parts(self.ptr(i), self.slot_size) }
    }

    /// iovecs describing every slot (for io_uring buffer registration).
    pub fn iovecs(&self) -> Vec<libc::iovec> {
        (0..self.slots)
            .map(|i| libc::iovec {
                iov_base: self.ptr(i).cast(),
                iov_len: self.slot_size,
            })
            .collect()
    }
}

impl Drop for BufPool {
    fn drop(&mut self) {
        // SAFETY: allocated with this layout in new().
        unsafe { dealloc(self.ptr.as_ptr(), self.layout) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_aligned_and_disjoint() {
        let mut p = BufPool::new(3, 5000, 4096).unwrap();
        assert_eq!(p.slot_size(), 8192);
        for i in 0..3 {
            assert_eq!(p.ptr(i) as usize % 4096, 0);
        }
        p.slot_mut(1).fill(7);
        assert!(p.slot(0).iter().all(|b| *b == 0));
        assert!(p.slot(1).iter().all(|b| *b == 7));
        assert_eq!(p.iovecs().len(), 3);
    }
}
