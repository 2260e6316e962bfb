//! Aligned I/O buffers: one slot per possible in-flight I/O, aligned for O_DIRECT.
//!
//! Ownership is what keeps a buffer alive while the kernel uses it. The pool hands out one
//! [`Slot`] token per buffer, once; a token is neither `Copy` nor `Clone`. Reading or writing a
//! buffer takes its token, and queueing an I/O moves the token into the engine
//! ([`crate::Engine::queue`]), which gives it back only with the I/O's completion. So code
//! that holds a token knows its buffer is not in flight, and reusing a buffer before its I/O
//! completed does not compile. The pool itself lives inside the engine, which frees it only
//! after every in-flight I/O completed (see the engine's `Drop`).

use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::io;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU32, Ordering};

/// A pool of equally sized, aligned buffers.
pub struct BufPool {
    ptr: NonNull<u8>,
    layout: Layout,
    slot_size: usize,
    slots: usize,
    id: u32,
}

/// The right to use one buffer of a pool: whoever holds it may read and write that buffer;
/// while an I/O uses the buffer, the engine holds it.
#[derive(Debug, PartialEq, Eq)]
pub struct Slot {
    index: u32,
    pool: u32,
}

impl Slot {
    /// The slot's index in its pool (stable for the pool's life; used to key bookkeeping).
    #[inline(always)]
    pub fn index(&self) -> u32 {
        self.index
    }
}

// SAFETY: the pool owns its allocation and hands out access only through `&self`/`&mut self`
// together with a slot token, so moving the pool to another thread moves that access with it.
unsafe impl Send for BufPool {}

impl std::fmt::Debug for BufPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BufPool")
            .field("slots", &self.slots)
            .field("slot_size", &self.slot_size)
            .finish()
    }
}

static POOL_IDS: AtomicU32 = AtomicU32::new(1);

impl BufPool {
    /// Allocates `slots` buffers of at least `size` bytes, each aligned to `align` (a power of
    /// two, at least the page size for O_DIRECT), and the one token of each.
    pub fn new(slots: usize, size: usize, align: usize) -> io::Result<(Self, Vec<Slot>)> {
        let slots = slots.max(1);
        if slots > u32::MAX as usize {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "too many buffers",
            ));
        }
        let align = align.max(4096).next_power_of_two();
        let slot_size = size.max(1).div_ceil(align) * align;
        let total = slot_size
            .checked_mul(slots)
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "buffer pool too large"))?;
        let layout = Layout::from_size_align(total, align)
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e.to_string()))?;
        // SAFETY: layout has non-zero size.
        let ptr = unsafe { alloc_zeroed(layout) };
        let ptr = NonNull::new(ptr).ok_or_else(|| {
            io::Error::new(io::ErrorKind::OutOfMemory, "cannot allocate I/O buffers")
        })?;
        let id = POOL_IDS.fetch_add(1, Ordering::Relaxed);
        let tokens = (0..slots as u32)
            .map(|index| Slot { index, pool: id })
            .collect();
        Ok((
            BufPool {
                ptr,
                layout,
                slot_size,
                slots,
                id,
            },
            tokens,
        ))
    }

    /// Number of slots.
    pub fn slots(&self) -> usize {
        self.slots
    }

    /// Size of each slot.
    pub fn slot_size(&self) -> usize {
        self.slot_size
    }

    /// Panics unless `s` is a token of this pool: a token of another pool could name a
    /// buffer of this one that is in flight.
    #[inline(always)]
    fn check(&self, s: &Slot) {
        assert!(
            s.pool == self.id && (s.index as usize) < self.slots,
            "slot token of another buffer pool"
        );
    }

    /// Start of slot `index` (crate-internal: only engines turn it into kernel pointers).
    #[inline(always)]
    pub(crate) fn raw(&self, index: u32) -> *mut u8 {
        debug_assert!((index as usize) < self.slots);
        // SAFETY: index < slots, so the offset stays inside the allocation.
        unsafe { self.ptr.as_ptr().add(index as usize * self.slot_size) }
    }

    /// The buffer of a slot the caller holds.
    #[inline(always)]
    pub fn buf(&self, s: &Slot) -> &[u8] {
        self.check(s);
        // SAFETY: in bounds; the caller holds the token, so no I/O uses this buffer, and no
        // `&mut` to it exists (that needs `&mut` of the token).
        unsafe { std::slice::from_raw_parts(self.raw(s.index), self.slot_size) }
    }

    /// The buffer of a slot the caller holds, to fill it.
    #[inline(always)]
    pub fn buf_mut(&mut self, s: &mut Slot) -> &mut [u8] {
        self.check(s);
        // SAFETY: in bounds; the caller holds the token exclusively, so nothing else (no I/O,
        // no other reference) uses this buffer while the borrow lives.
        unsafe { std::slice::from_raw_parts_mut(self.raw(s.index), self.slot_size) }
    }

    /// Checks that `s` belongs here and that `off..off+len` lies inside its buffer; returns
    /// the pointer an I/O on that range uses.
    #[inline(always)]
    pub(crate) fn io_ptr(&self, s: &Slot, off: u32, len: u32) -> Option<*mut u8> {
        self.check(s);
        if off as usize + len as usize > self.slot_size {
            return None;
        }
        // SAFETY: off + len <= slot_size, so the pointer stays inside the slot.
        Some(unsafe { self.raw(s.index).add(off as usize) })
    }

    /// iovecs describing every slot (for io_uring buffer registration).
    pub(crate) fn iovecs(&self) -> Vec<libc::iovec> {
        (0..self.slots as u32)
            .map(|i| libc::iovec {
                iov_base: self.raw(i).cast(),
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
        let (mut p, mut t) = BufPool::new(3, 5000, 4096).unwrap();
        assert_eq!(p.slot_size(), 8192);
        assert_eq!(t.len(), 3);
        for i in 0..3 {
            assert_eq!(p.raw(i) as usize % 4096, 0, "slot {i} alignment");
        }
        p.buf_mut(&mut t[1]).fill(7);
        assert!(p.buf(&t[0]).iter().all(|b| *b == 0));
        assert!(p.buf(&t[1]).iter().all(|b| *b == 7));
        assert_eq!(p.iovecs().len(), 3);
    }

    #[test]
    fn io_ranges_stay_inside_the_slot() {
        let (p, t) = BufPool::new(2, 4096, 4096).unwrap();
        assert!(p.io_ptr(&t[0], 0, 4096).is_some());
        assert!(p.io_ptr(&t[0], 512, 3584).is_some());
        assert!(p.io_ptr(&t[0], 512, 3585).is_none(), "past the slot's end");
    }

    #[test]
    #[should_panic(expected = "another buffer pool")]
    fn a_token_of_another_pool_is_refused() {
        let (a, _ta) = BufPool::new(1, 4096, 4096).unwrap();
        let (_b, tb) = BufPool::new(1, 4096, 4096).unwrap();
        let _ = a.buf(&tb[0]);
    }
}
