//! The heap of a short command in transparent huge pages.
//!
//! A render's time is partly the kernel's: every 4 KiB page of heap the process touches for the
//! first time is a page fault (about 2 µs on the machines we measure on, `bench/page-fault-cost.py`),
//! and an umbrella of 200 subcharts touches about 7,000 of them. A transparent huge page is one
//! fault for 2 MiB (about 0.25 µs per 4 KiB). The C library's allocator asks for them only when
//! told to by an environment variable read at the process's start (`GLIBC_TUNABLES=
//! glibc.malloc.hugetlb=1`), which a user does not set; [`use_huge_pages`] does at run time what
//! that setting does for the main thread's heap, with the allocator's public interface:
//!
//! 1. the heap grows by [`RESERVE`] at a time (`mallopt(M_TOP_PAD)`; address space, not
//!    memory: a page is only memory once touched) and blocks up to [`IN_HEAP`] come from it
//!    rather than from mappings of their own (`M_MMAP_THRESHOLD`);
//! 2. a block that is never freed nor touched fills the heap up to a 2 MiB boundary past every
//!    page the allocator has written, so that what is allocated next starts on one, in 2 MiB
//!    nothing has touched (a page touched before the advice keeps its 2 MiB in 4 KiB pages);
//! 3. the heap from that boundary on is marked for huge pages (`madvise(MADV_HUGEPAGE)`).
//!
//! Only for a process that renders and exits: memory then comes in 2 MiB steps and is not given
//! back before the end (a long-running controller keeps the allocator's defaults). Where the
//! kernel gives no huge pages (`transparent_hugepage` set to `never`) the advice changes
//! nothing; on other systems the call does nothing. The bytes the program computes are not
//! affected: only where the allocator's memory lies and how the kernel maps it.

/// How much address space the heap grows by at a time.
pub const RESERVE: usize = 64 << 20;

/// Blocks up to this size come from the heap (larger ones are mappings of their own).
pub const IN_HEAP: usize = 4 << 20;

/// The size of a transparent huge page on x86-64 and arm64 (with 4 KiB pages).
const HUGE_PAGE: usize = 2 << 20;

/// Put the main thread's heap in transparent huge pages from here on (see the crate's docs).
/// Call it once, at the start of a short command, before the work allocates.
pub fn use_huge_pages() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    glibc::use_huge_pages();
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
mod glibc {
    use super::{HUGE_PAGE, IN_HEAP, RESERVE};

    /// The filler block's size at first: more than the top of the heap holds at the start of a
    /// process, so that it is cut from a heap grown by RESERVE.
    const FILLER: usize = 3 << 20;
    /// A block's header in the allocator (its size word, aligned).
    const HEADER: usize = 16;
    /// The least the filler grows by (a boundary closer to its end is skipped for the next one).
    const SLACK: usize = 4096;

    pub(super) fn use_huge_pages() {
        // SAFETY: `mallopt` only changes the allocator's parameters (valid values, checked by it).
        let tuned = unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, IN_HEAP as libc::c_int) == 1
                && libc::mallopt(libc::M_TOP_PAD, RESERVE as libc::c_int) == 1
        };
        if !tuned {
            return;
        }
        // SAFETY: `malloc`, `realloc` and `sbrk(0)` (which only reads the program break) are
        // called as documented; the filler block is never read, written or freed.
        unsafe {
            // A block larger than any freed so far (the start of a process frees little) is cut
            // from the top of the heap, which grows by RESERVE to make room for it.
            let filler = libc::malloc(FILLER) as usize;
            if filler == 0 {
                return;
            }
            // The allocator wrote the header of the top of the heap at the filler's end: a page
            // written before the advice keeps its 2 MiB from ever being a huge page, so the
            // boundary is the first one past that end (one inside the filler, as a filler shrunk
            // to it had, left the first 2 MiB of the advised heap in 4 KiB pages in about half of
            // the runs, by where the heap happened to start).
            let boundary = (filler + FILLER + SLACK + HUGE_PAGE - 1) & !(HUGE_PAGE - 1);
            // Grown in place into the top of the heap to end just before the boundary, it leaves
            // the top starting there (its header in the page before it).
            let kept = libc::realloc(filler as *mut libc::c_void, boundary - filler - HEADER);
            let end = libc::sbrk(0) as usize;
            if kept as usize != filler || end == usize::MAX || end <= boundary + HUGE_PAGE {
                return;
            }
            libc::madvise(
                boundary as *mut libc::c_void,
                end - boundary,
                libc::MADV_HUGEPAGE,
            );
        }
    }
}
