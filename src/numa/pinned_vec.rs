//! [`PinnedVec`]: a buffer bound to one NUMA node (`round_robin_vec.rs`
//! shards one array over a distributed pool's nodes with it).
//!
//! A `PinnedVec` maps fresh pages from the OS (`mmap`, so nothing touches
//! them yet), binds them to the node's own nodeset with hwloc's `Bind`
//! policy and `STRICT` flag, and only then writes to them: every page is
//! first touched after the binding, so it lands on the node. If hwloc
//! cannot bind the pages the allocation fails; memory is never handed back
//! unbound. For the same reason a topology that was loaded from XML or a
//! synthetic description, on which hwloc only pretends to bind, is refused.
//!
//! The binding is a policy, not a reservation: as with any `Bind` policy,
//! a node that runs out of memory fails at first touch (the OS's
//! out-of-memory handling), not with an `Err`. Size buffers to the node's
//! [`crate::numa::Node::local_memory`].

use super::topology::Topology;
use crate::error::Error;
use core::mem::{size_of, MaybeUninit};
use core::ops::{Deref, DerefMut};
use core::ptr::NonNull;
use hwlocality::memory::binding::{MemoryBindingFlags, MemoryBindingPolicy};
use hwlocality::memory::nodeset::NodeSet;
use std::string::ToString;
use std::vec::Vec;

/// A `Vec`-like buffer whose memory lives on one NUMA node.
///
/// Its pages are bound to the node before anything touches them, and every
/// operation that may allocate is fallible. Allocation is by whole pages, so
/// it suits large buffers.
///
/// ```
/// use tine::numa::{PinnedVec, Topology};
///
/// let topology = Topology::discover()?;
/// let node = topology.colocations()[0].node();
/// let mut values = PinnedVec::with_capacity(&topology, node, 1024)?;
/// for i in 0..1024u32 {
///     values.try_push(i)?;
/// }
/// assert_eq!(values.iter().sum::<u32>(), 1023 * 1024 / 2);
/// assert!(values.memory_nodes()?.iter().all(|&n| n == node));
/// # Ok::<(), tine::Error>(())
/// ```
pub struct PinnedVec<T> {
    pub(super) ptr: NonNull<T>,
    len: usize,
    capacity: usize,
    /// Bytes mapped at `ptr` (0 when nothing is mapped).
    mapped: usize,
    node: usize,
    nodeset: NodeSet,
    topology: Topology,
}

// SAFETY: a PinnedVec owns its elements like a Vec does; the raw pointer is
// what makes the compiler unsure.
unsafe impl<T: Send> Send for PinnedVec<T> {}
// SAFETY: as above: `&PinnedVec<T>` only hands out `&T`.
unsafe impl<T: Sync> Sync for PinnedVec<T> {}

impl<T> core::fmt::Debug for PinnedVec<T>
where
    T: core::fmt::Debug,
{
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("PinnedVec")
            .field("node", &self.node)
            .field("elements", &self.as_slice())
            .finish()
    }
}

fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(size)
        .ok()
        .filter(|&s| s > 0)
        .unwrap_or(4096)
}

fn memory_error(operation: &'static str, message: impl ToString) -> Error {
    Error::Hwloc {
        operation,
        message: message.to_string(),
    }
}

impl<T> PinnedVec<T> {
    /// An empty buffer for the node with OS index `node`; nothing is mapped
    /// until the first element.
    ///
    /// # Errors
    /// [`Error::NoSuchNode`], or [`Error::Hwloc`] if `topology` is not the
    /// running machine's (binding would be faked) or `T`'s alignment exceeds
    /// a page.
    pub fn new(topology: &Topology, node: usize) -> Result<Self, Error> {
        let mut nodeset = NodeSet::new();
        for &index in topology.node(node)?.nodeset() {
            nodeset.set(index);
        }
        if !topology.is_this_system() {
            return Err(memory_error(
                "bind memory",
                "the topology was loaded from XML or a synthetic description, on which \
                 hwloc only pretends to bind; use Topology::discover()",
            ));
        }
        if core::mem::align_of::<T>() > page_size() {
            return Err(memory_error(
                "allocate bound memory",
                "the element type is aligned to more than a page",
            ));
        }
        Ok(PinnedVec {
            ptr: NonNull::dangling(),
            len: 0,
            capacity: if size_of::<T>() == 0 { usize::MAX } else { 0 },
            mapped: 0,
            node,
            nodeset,
            topology: topology.clone(),
        })
    }

    /// An empty buffer with room for `capacity` elements, bound and mapped.
    ///
    /// # Errors
    /// As [`PinnedVec::new`] and [`PinnedVec::try_reserve`].
    pub fn with_capacity(topology: &Topology, node: usize, capacity: usize) -> Result<Self, Error> {
        let mut vec = Self::new(topology, node)?;
        vec.try_reserve(capacity)?;
        Ok(vec)
    }

    /// The OS index of the node the memory is bound to.
    pub fn node(&self) -> usize {
        self.node
    }

    /// Elements stored.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no element is stored.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Elements that fit without another allocation.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// The elements.
    pub fn as_slice(&self) -> &[T] {
        // SAFETY: the first `len` elements are initialized, and `ptr` is
        // valid (or dangling and aligned, for `len == 0` or a ZST).
        unsafe { core::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }

    /// The elements, mutably.
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        // SAFETY: as in `as_slice`, and `&mut self` makes it exclusive.
        unsafe { core::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }

    /// Makes room for at least `additional` more elements. New pages are
    /// bound to the node before the old elements are copied into them.
    ///
    /// # Errors
    /// [`Error::Hwloc`] if the size overflows, the OS refuses the mapping,
    /// or the binding cannot be honoured.
    pub fn try_reserve(&mut self, additional: usize) -> Result<(), Error> {
        let needed = self
            .len
            .checked_add(additional)
            .ok_or_else(|| memory_error("allocate bound memory", "capacity overflow"))?;
        if needed <= self.capacity {
            return Ok(());
        }
        let bytes_for = |capacity: usize| {
            capacity
                .checked_mul(size_of::<T>())
                .and_then(|b| b.checked_next_multiple_of(page_size()))
                .filter(|&b| b <= isize::MAX as usize)
        };
        // Double (amortized growth) if that fits, else exactly what is needed.
        let bytes = bytes_for(needed.max(self.capacity.saturating_mul(2)))
            .or_else(|| bytes_for(needed))
            .ok_or_else(|| memory_error("allocate bound memory", "capacity overflow"))?;
        let fresh = self.map_bound(bytes)?;
        // SAFETY: both regions hold at least `len` elements and do not
        // overlap (the new one is a fresh mapping).
        unsafe { core::ptr::copy_nonoverlapping(self.ptr.as_ptr(), fresh.as_ptr(), self.len) };
        self.unmap();
        self.ptr = fresh;
        self.mapped = bytes;
        self.capacity = bytes / size_of::<T>();
        Ok(())
    }

    /// Maps `bytes` of fresh pages and binds them to the node, strictly.
    fn map_bound(&self, bytes: usize) -> Result<NonNull<T>, Error> {
        // SAFETY: an anonymous private mapping at an address of the OS's
        // choice has no preconditions.
        let raw = unsafe {
            libc::mmap(
                core::ptr::null_mut(),
                bytes,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if raw == libc::MAP_FAILED {
            return Err(memory_error(
                "allocate bound memory",
                std::io::Error::last_os_error(),
            ));
        }
        // SAFETY: the mapping is `bytes` long and readable; MaybeUninit
        // makes no claim about its contents.
        let area = unsafe { core::slice::from_raw_parts(raw.cast::<MaybeUninit<u8>>(), bytes) };
        let bound = self.topology.hwloc().bind_memory_area(
            area,
            &self.nodeset,
            MemoryBindingPolicy::Bind,
            MemoryBindingFlags::STRICT,
        );
        if let Err(error) = bound {
            // SAFETY: we mapped exactly this region above and nothing uses it.
            unsafe { libc::munmap(raw, bytes) };
            return Err(memory_error("bind memory", error));
        }
        // mmap never returns null on success.
        NonNull::new(raw.cast::<T>())
            .ok_or_else(|| memory_error("allocate bound memory", "mmap returned null"))
    }

    fn unmap(&mut self) {
        if self.mapped > 0 {
            // SAFETY: `ptr` is our mapping of `mapped` bytes; no element in
            // it is live any more (moved out or dropped by the caller).
            unsafe { libc::munmap(self.ptr.as_ptr().cast(), self.mapped) };
            self.mapped = 0;
        }
    }

    /// Appends `value`.
    ///
    /// # Errors
    /// As [`PinnedVec::try_reserve`]; `value` is dropped then.
    pub fn try_push(&mut self, value: T) -> Result<(), Error> {
        if self.len == self.capacity {
            self.try_reserve(1)?;
        }
        // SAFETY: `len < capacity`, so the slot is inside the mapping and
        // holds no live element.
        unsafe { self.ptr.as_ptr().add(self.len).write(value) };
        self.len += 1;
        Ok(())
    }

    /// Removes and returns the last element.
    pub fn pop(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        self.len -= 1;
        // SAFETY: the element at the old `len - 1` was initialized and is no
        // longer counted, so it is read exactly once.
        Some(unsafe { self.ptr.as_ptr().add(self.len).read() })
    }

    /// Drops the elements from `len` on.
    pub fn truncate(&mut self, len: usize) {
        if len >= self.len {
            return;
        }
        let tail = core::ptr::slice_from_raw_parts_mut(
            // SAFETY: `len < self.len`, so the offset is in bounds.
            unsafe { self.ptr.as_ptr().add(len) },
            self.len - len,
        );
        // Shorten first: a panicking `Drop` then leaks rather than
        // double-drops.
        self.len = len;
        // SAFETY: the tail was initialized and is no longer counted.
        unsafe { core::ptr::drop_in_place(tail) };
    }

    /// Drops every element, keeping the memory.
    pub fn clear(&mut self) {
        self.truncate(0);
    }

    /// Appends clones of `values`.
    ///
    /// # Errors
    /// As [`PinnedVec::try_reserve`].
    pub fn try_extend_from_slice(&mut self, values: &[T]) -> Result<(), Error>
    where
        T: Clone,
    {
        self.try_reserve(values.len())?;
        for value in values {
            // Cannot allocate: the room is reserved.
            self.try_push(value.clone())?;
        }
        Ok(())
    }

    /// Resizes to `len`, filling new slots with `fill()`.
    ///
    /// # Errors
    /// As [`PinnedVec::try_reserve`].
    pub fn try_resize_with(
        &mut self,
        len: usize,
        mut fill: impl FnMut() -> T,
    ) -> Result<(), Error> {
        if len <= self.len {
            self.truncate(len);
            return Ok(());
        }
        self.try_reserve(len - self.len)?;
        while self.len < len {
            self.try_push(fill())?;
        }
        Ok(())
    }

    /// The OS indices of the nodes the stored elements' pages are on now,
    /// from hwloc's memory-location query (`move_pages` on Linux). Empty if
    /// nothing is stored. Only pages that have been touched have a place.
    ///
    /// # Errors
    /// [`Error::Hwloc`] if the OS cannot say.
    pub fn memory_nodes(&self) -> Result<Vec<usize>, Error> {
        let bytes = self.len * size_of::<T>();
        if bytes == 0 {
            return Ok(Vec::new());
        }
        // SAFETY: the first `bytes` bytes of the mapping hold the elements.
        let area = unsafe {
            core::slice::from_raw_parts(self.ptr.as_ptr().cast::<MaybeUninit<u8>>(), bytes)
        };
        let nodes: NodeSet = self
            .topology
            .hwloc()
            .area_memory_location(area, MemoryBindingFlags::empty())
            .map_err(|e| memory_error("locate memory", e))?;
        Ok(nodes.iter_set().map(usize::from).collect())
    }

    /// A pointer to the first element (the mapping's start).
    pub fn as_ptr(&self) -> *const T {
        self.ptr.as_ptr()
    }

    /// A mutable pointer to the first element.
    pub fn as_mut_ptr(&mut self) -> *mut T {
        self.ptr.as_ptr()
    }

    /// Sets the length without touching the elements.
    ///
    /// # Safety
    /// `len <= capacity`, and the first `len` elements must be initialized.
    pub(crate) unsafe fn set_len(&mut self, len: usize) {
        self.len = len;
    }
}

impl<T> Drop for PinnedVec<T> {
    fn drop(&mut self) {
        /// Unmaps even if an element's `Drop` panics.
        struct Unmap<'a, T>(&'a mut PinnedVec<T>);
        impl<T> Drop for Unmap<'_, T> {
            fn drop(&mut self) {
                self.0.unmap();
            }
        }
        let guard = Unmap(self);
        guard.0.clear();
    }
}

impl<T> Deref for PinnedVec<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T> DerefMut for PinnedVec<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        self.as_mut_slice()
    }
}
