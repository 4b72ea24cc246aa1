#!/usr/bin/env python3
"""Write the unsafe and edge-case chart archives of testdata/charts/archives/.

Each archive is a gzipped tar whose first path component is the chart directory, like
`helm package` makes, but with one hostile property: a path escaping the chart, an absolute
path, a symbolic link, a decompression bomb, too many entries, or Chart.yaml outside the chart
directory. Deterministic (fixed mtimes) so regeneration gives the same bytes.
"""
import gzip
import io
import os
import tarfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT = os.path.join(ROOT, "testdata/charts/archives")
CHART = b"apiVersion: v2\nname: evil\nversion: 0.1.0\n"
CM = b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: evil\n"


def add(tar, name, data=b"", kind=tarfile.REGTYPE, link=""):
    info = tarfile.TarInfo(name)
    info.size = len(data) if kind == tarfile.REGTYPE else 0
    info.mtime = 1700000000
    info.type = kind
    info.linkname = link
    info.mode = 0o644
    tar.addfile(info, io.BytesIO(data) if kind == tarfile.REGTYPE else None)


def write(name, entries, big=None):
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.GNU_FORMAT) as tar:
        add(tar, "evil/Chart.yaml", CHART)
        add(tar, "evil/templates/cm.yaml", CM)
        for e in entries:
            add(tar, *e)
        if big:
            info = tarfile.TarInfo(big[0])
            info.size = big[1]
            info.mtime = 1700000000
            tar.addfile(info, ZeroReader(big[1]))
    data = gzip.compress(raw.getvalue(), compresslevel=9, mtime=0)
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)


class ZeroReader:
    def __init__(self, n):
        self.n = n

    def read(self, size=-1):
        size = self.n if size < 0 else min(size, self.n)
        self.n -= size
        return b"\0" * size


def main():
    os.makedirs(OUT, exist_ok=True)
    write("path-escape.tgz", [("evil/../../etc/evil.yaml", CM)])
    write("absolute-path.tgz", [("/etc/evil.yaml", CM)])
    write("symlink-out.tgz", [("evil/templates/link.yaml", b"", tarfile.SYMTYPE, "/etc/passwd")])
    write("hardlink.tgz", [("evil/templates/hard.yaml", b"", tarfile.LNKTYPE, "evil/Chart.yaml")])
    write("gzip-bomb.tgz", [], big=("evil/files/zeros.bin", 101 * 1024 * 1024))
    write("too-many-files.tgz", [(f"evil/files/f{i}.txt", b"x") for i in range(10001)])
    write("chart-yaml-outside.tgz", [("Chart.yaml", CHART)])
    write("ok.tgz", [("evil/files/readme.txt", b"fine\n")])
    print(f"wrote archives into {OUT}")


if __name__ == "__main__":
    main()
