#!/usr/bin/env python3
"""Time commands side by side, interleaved run by run, so that the machine's noise (another
process, the kernel reclaiming memory) falls on each command alike instead of on whichever
series it happened to coincide with.

Each run starts every command once, in the order given, and takes from the kernel's accounting
of the finished child its CPU time (user + system) and the wall time from start to reaped. One
warm-up round is run first and not counted. Peak memory is taken from one more run of each
command under GNU time: a child forked by Python inherits Python's peak (about 14 MiB) as its
own until it execs, so the kernel's figure for it is never below that. Each command's executable
is put in the page cache the same way first (`settle`).

As a program (bench/template-vs-helm.sh uses it):

    bench/lib/interleaved.py RUNS 'CMD ONE' 'CMD TWO' ...

prints one line per command: median wall seconds, median CPU seconds, peak KiB (GNU time), and
how many of its runs exited non-zero (their times are counted, as `hyperfine -i` counts them).
Commands are split as a shell would split words (no shell is started: its start would be timed).
"""

import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def once(argv):
    """(wall seconds, CPU seconds, exit status) of one run of argv."""
    start = time.monotonic()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.monotonic() - start
    return wall, usage.ru_utime + usage.ru_stime, status


def peak_kib(argv):
    """Peak resident memory (KiB) of one run of argv, as GNU time reports it."""
    with tempfile.NamedTemporaryFile("r") as out:
        subprocess.run(
            ["/usr/bin/time", "-f", "%M", "-o", out.name, *argv],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        return int(out.read().split()[-1])


def settle(executable):
    """Puts an executable's file in the page cache as a first run after boot finds it: its
    cached pages dropped, then read through once. How a binary came into the cache (written by
    the linker or `cp`, or read from disk) changes how much of it each page fault maps: the same
    kubepkg build peaked 2 MB apart (13.0 against 15.2 MB on a one-template chart) with the same
    CPU time. Every command's executable is settled alike before it is timed."""
    path = executable if os.sep in executable else shutil.which(executable)
    if not path:
        return
    with open(path, "rb") as f:
        # A file just written has pages the kernel keeps until they reach the disk.
        os.fsync(f.fileno())
        os.posix_fadvise(f.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)
        while f.read(1 << 20):
            pass


def measure(commands, runs, warmup=1):
    """For each command (an argv list), its runs: lists of once()'s tuples, interleaved. Each
    command's executable is settled first (`settle`)."""
    for executable in dict.fromkeys(argv[0] for argv in commands):
        settle(executable)
    for _ in range(warmup):
        for argv in commands:
            once(argv)
    got = [[] for _ in commands]
    for _ in range(runs):
        for i, argv in enumerate(commands):
            got[i].append(once(argv))
    return got


def medians(samples):
    """(median wall, median CPU) of one command's runs."""
    return tuple(statistics.median(s[i] for s in samples) for i in range(2))


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: interleaved.py RUNS CMD...")
    runs = int(sys.argv[1])
    commands = [shlex.split(c) for c in sys.argv[2:]]
    for argv, samples in zip(commands, measure(commands, runs)):
        wall, cpu = medians(samples)
        failed = sum(1 for s in samples if s[2] != 0)
        print(f"{wall:.6f} {cpu:.6f} {peak_kib(argv)} {failed}")


if __name__ == "__main__":
    main()
