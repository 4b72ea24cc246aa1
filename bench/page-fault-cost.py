#!/usr/bin/env python3
"""What a fresh page of memory costs a process on this machine: the first write to each 4 KiB
page of a new anonymous mapping (a page fault: the kernel allocates, zeroes and charges a page),
the same pages filled ahead by one madvise(MADV_POPULATE_WRITE) call, and the same memory asked
for as transparent huge pages (madvise(MADV_HUGEPAGE)). A render's fresh heap pages cost this
each (bench/README.md "What a small chart's render pays for").

  bench/page-fault-cost.py [PAGES]      (default 2560 pages, 10 MiB; five rounds)
"""
import mmap
import sys
import time

PAGE = 4096
MADV_POPULATE_WRITE = getattr(mmap, "MADV_POPULATE_WRITE", 23)
HUGE = 2 << 20


def touch(m, size):
    start = time.perf_counter()
    for off in range(0, size, PAGE):
        m[off] = 1
    return time.perf_counter() - start


def main():
    pages = int(sys.argv[1]) if len(sys.argv) > 1 else 2560
    size = pages * PAGE
    # The loop's own cost, on pages already there.
    warm = mmap.mmap(-1, size)
    touch(warm, size)
    print(f"{'round':>5} {'fault_us/page':>14} {'populate_us/page':>17} {'thp_us/page':>12} {'loop_us/page':>13}")
    for r in range(5):
        loop = touch(warm, size)
        m = mmap.mmap(-1, size)
        fault = touch(m, size)
        p = mmap.mmap(-1, size)
        start = time.perf_counter()
        p.madvise(MADV_POPULATE_WRITE)
        touch(p, size)
        populate = time.perf_counter() - start
        h = mmap.mmap(-1, size + HUGE)
        h.madvise(mmap.MADV_HUGEPAGE)
        thp = touch(h, size + HUGE)
        for x in (m, p, h):
            x.close()
        us = 1e6 / pages
        print(f"{r:>5} {fault * us:>14.2f} {populate * us:>17.2f} {thp * 1e6 / (pages + HUGE // PAGE):>12.2f} {loop * us:>13.2f}")


if __name__ == "__main__":
    main()
