#!/usr/bin/env python3
"""What a fresh page of memory costs a process on this machine: the first write to each 4 KiB
page of a new private anonymous mapping (a page fault: the kernel allocates, zeroes and charges
a page), the same pages filled ahead by one madvise(MADV_POPULATE_WRITE) call, and the same
memory asked for as transparent huge pages (madvise(MADV_HUGEPAGE): one fault maps 2 MiB). A
render's fresh heap pages cost this each (bench/README.md "What a small chart's render pays
for", "Huge pages").

Every mapping is private, as a process's heap is: Python's `mmap.mmap(-1, n)` alone maps shared
memory, which the kernel backs by huge pages only under `shmem_enabled` (an earlier version of
this script measured that, and its huge-page column was 4 KiB faults). The huge pages the
kernel really gave are counted from /proc/vmstat (`thp_fault_alloc`) and printed.

  bench/page-fault-cost.py [PAGES]      (default 2560 pages, 10 MiB; five rounds)
"""
import mmap
import sys
import time

PAGE = 4096
MADV_POPULATE_WRITE = getattr(mmap, "MADV_POPULATE_WRITE", 23)
HUGE = 2 << 20
PRIVATE = mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS


def touch(m, size):
    start = time.perf_counter()
    for off in range(0, size, PAGE):
        m[off] = 1
    return time.perf_counter() - start


def huge_faults():
    """The kernel's count of huge pages mapped at a fault, since boot."""
    with open("/proc/vmstat") as f:
        for line in f:
            if line.startswith("thp_fault_alloc "):
                return int(line.split()[1])
    return 0


def main():
    pages = int(sys.argv[1]) if len(sys.argv) > 1 else 2560
    size = pages * PAGE
    with open("/sys/kernel/mm/transparent_hugepage/enabled") as f:
        print(f"transparent_hugepage: {f.read().strip()}")
    # The loop's own cost, on pages already there.
    warm = mmap.mmap(-1, size, flags=PRIVATE)
    touch(warm, size)
    print(f"{'round':>5} {'fault_us/page':>14} {'populate_us/page':>17} {'thp_us/page':>12} "
          f"{'huge_pages':>10} {'loop_us/page':>13}")
    for r in range(5):
        loop = touch(warm, size)
        m = mmap.mmap(-1, size, flags=PRIVATE)
        fault = touch(m, size)
        p = mmap.mmap(-1, size, flags=PRIVATE)
        start = time.perf_counter()
        p.madvise(MADV_POPULATE_WRITE)
        touch(p, size)
        populate = time.perf_counter() - start
        # One huge page more than needed, so that the 2 MiB-aligned part covers the size.
        h = mmap.mmap(-1, size + HUGE, flags=PRIVATE)
        h.madvise(mmap.MADV_HUGEPAGE)
        before = huge_faults()
        thp = touch(h, size + HUGE)
        huge = huge_faults() - before
        for x in (m, p, h):
            x.close()
        us = 1e6 / pages
        print(f"{r:>5} {fault * us:>14.2f} {populate * us:>17.2f} "
              f"{thp * 1e6 / (pages + HUGE // PAGE):>12.2f} {huge:>10} {loop * us:>13.2f}")


if __name__ == "__main__":
    main()
