//! The main thread's heap after [`kubepkg_heap::use_huge_pages`], as the kernel reports it in
//! `/proc/self/smaps`: the part past the 2 MiB boundary is marked for huge pages (`hg` in its
//! `VmFlags`), what is allocated next lies in it, and where the kernel hands out huge pages on
//! request, memory written there is in them (`AnonHugePages`) — from the first block allocated
//! after the call on, wherever the heap happened to start (checked in several processes: the
//! heap's start moves from run to run).

/// One mapping of `/proc/self/smaps`: its address range and its lines.
struct Mapping<'s> {
    range: std::ops::Range<usize>,
    lines: Vec<&'s str>,
}

impl Mapping<'_> {
    fn field(&self, name: &str) -> Option<&str> {
        self.lines
            .iter()
            .find_map(|l| l.strip_prefix(name))
            .map(str::trim)
    }
}

/// The mappings of `smaps`: each starts with a line `start-end perms offset dev inode [path]`.
fn mappings(smaps: &str) -> Vec<Mapping<'_>> {
    let mut out: Vec<Mapping<'_>> = Vec::new();
    for line in smaps.lines() {
        let first = line.split_whitespace().next().unwrap_or("");
        let range = first.split_once('-').and_then(|(lo, hi)| {
            Some(usize::from_str_radix(lo, 16).ok()?..usize::from_str_radix(hi, 16).ok()?)
        });
        match (range, out.last_mut()) {
            (Some(range), _) => out.push(Mapping {
                range,
                lines: vec![line],
            }),
            (None, Some(m)) => m.lines.push(line),
            (None, None) => {}
        }
    }
    out
}

/// The page faults this process has taken so far (the kernel's count of minor faults).
fn faults() -> u64 {
    let stat = std::fs::read_to_string("/proc/self/stat").expect("/proc/self/stat");
    // After the command's name in parentheses: state is field 3, minflt field 10.
    let rest = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
    rest.split_whitespace()
        .nth(7)
        .and_then(|v| v.parse().ok())
        .expect("minflt in /proc/self/stat")
}

/// The variable that makes a run of this test the child that checks one heap.
const CHILD: &str = "KUBEPKG_HEAP_TEST_CHILD";

/// How many processes check where their first block lies (each heap starts elsewhere).
const CHILDREN: usize = 12;

fn main() {
    if std::env::var_os(CHILD).is_some() {
        return first_block();
    }
    for run in 0..CHILDREN {
        let out = std::process::Command::new(std::env::current_exe().expect("the test's path"))
            .env(CHILD, "1")
            .output()
            .expect("the test runs itself");
        assert!(
            out.status.success(),
            "run {run}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    whole_heap();
}

/// The first block allocated after the call, 1 MiB written page by page, lies in a huge page:
/// a few faults, where 4 KiB pages take 256.
fn first_block() {
    kubepkg_heap::use_huge_pages();
    let before = faults();
    let mut block = vec![0u8; 1 << 20];
    for page in block.chunks_mut(4096) {
        page[0] = 1;
    }
    let taken = faults() - before;
    std::hint::black_box(&block);
    let mode =
        std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled").unwrap_or_default();
    if mode.contains("[always]") || mode.contains("[madvise]") {
        assert!(
            taken < 16,
            "1 MiB allocated first after the call, written page by page: {taken} page faults \
             (in huge pages it takes one or two)"
        );
    }
}

/// 8 MiB of small blocks lie in the heap marked for huge pages, and in huge pages.
fn whole_heap() {
    kubepkg_heap::use_huge_pages();
    // Small blocks, as a render allocates them, written so the kernel maps them: 8 MiB.
    let blocks: Vec<Box<[u8; 256]>> = (0..32 * 1024).map(|i| Box::new([i as u8; 256])).collect();
    let at = &*blocks[blocks.len() / 2] as *const [u8; 256] as usize;

    let smaps = std::fs::read_to_string("/proc/self/smaps").expect("/proc/self/smaps");
    let all = mappings(&smaps);
    let heap = all
        .iter()
        .find(|m| m.range.contains(&at))
        .expect("the blocks lie in a mapping smaps lists");
    assert!(
        heap.lines[0].ends_with("[heap]"),
        "the blocks lie in the main thread's heap: {}",
        heap.lines[0]
    );
    let flags = heap.field("VmFlags:").unwrap_or("");
    assert!(
        flags.split_whitespace().any(|f| f == "hg"),
        "the heap where the blocks lie is marked for huge pages (VmFlags: {flags})"
    );
    let huge_kb: u64 = heap
        .field("AnonHugePages:")
        .and_then(|v| v.trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0);
    let mode =
        std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled").unwrap_or_default();
    if mode.contains("[always]") || mode.contains("[madvise]") {
        assert!(
            huge_kb >= 2048,
            "8 MiB written where huge pages were asked for: {huge_kb} kB in them"
        );
    }
    println!(
        "main heap: marked for huge pages, {huge_kb} kB in them ({})",
        mode.trim()
    );
}
