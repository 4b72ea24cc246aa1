//! A small mutation fuzzer on stable Rust (used by `kubepkg-chart`'s `fuzz.rs` and by
//! `kubepkg-package`'s `source.rs` tests): seeded, so a failure reproduces
//! with `KUBEPKG_FUZZ_SEED`; each target runs a fixed number of inputs (its own count, or
//! `KUBEPKG_FUZZ_RUNS` for a longer campaign by hand), so every machine tries the same inputs,
//! however fast it is. Each input is at most [`MAX_INPUT`] bytes, and each target bounds the
//! work of one input with the limits of the code under test (operations, depth, sizes). A
//! target fails on a panic (caught, with the input printed); a stack overflow or abort fails
//! the whole test binary.
//!
//! `cargo fuzz` (libFuzzer, coverage-guided) needs a nightly toolchain and a C++ build of
//! libFuzzer; these harnesses run under plain `cargo test` in CI instead.

use std::time::{Duration, Instant};

/// xorshift64*: deterministic, no dependency.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }
}

/// One mutation of `input`: flip, insert a token or byte, delete, duplicate or splice.
pub fn mutate(rng: &mut Rng, input: &[u8], tokens: &[&[u8]], corpus: &[Vec<u8>]) -> Vec<u8> {
    let mut v = input.to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(v.len() + 1);
        match rng.below(7) {
            0 if !v.is_empty() => {
                let i = rng.below(v.len());
                v[i] ^= 1 << rng.below(8);
            }
            1 => {
                let t = tokens[rng.below(tokens.len())];
                v.splice(at..at, t.iter().copied());
            }
            2 if !v.is_empty() => {
                let end = (at + 1 + rng.below(16)).min(v.len());
                let start = at.min(end);
                v.drain(start..end);
            }
            3 if !v.is_empty() => {
                let start = rng.below(v.len());
                let end = (start + 1 + rng.below(64)).min(v.len());
                let chunk: Vec<u8> = v[start..end].to_vec();
                for _ in 0..1 + rng.below(8) {
                    v.splice(at.min(v.len())..at.min(v.len()), chunk.iter().copied());
                }
            }
            4 if !corpus.is_empty() => {
                let other = &corpus[rng.below(corpus.len())];
                let start = rng.below(other.len() + 1);
                let end = (start + rng.below(128)).min(other.len());
                v.splice(at..at, other[start..end].iter().copied());
            }
            5 => v.insert(at, rng.next_u64() as u8),
            _ => {}
        }
    }
    v.truncate(MAX_INPUT);
    v
}

/// The largest input a mutation may produce.
pub const MAX_INPUT: usize = 1 << 16;

/// How many inputs a target runs: `KUBEPKG_FUZZ_RUNS` when set, else the target's own count.
pub fn runs(own: usize) -> usize {
    std::env::var("KUBEPKG_FUZZ_RUNS")
        .ok()
        .and_then(|s| s.parse::<usize>().ok())
        .unwrap_or(own)
}

/// Run `target` over [`runs`]`(count)` mutations of `corpus`; returns how many inputs ran.
/// Panics (a failed test) with the offending input on a panic. The slowest input is reported
/// (not asserted: a machine's speed decides nothing here).
pub fn run(
    name: &str,
    corpus: &[Vec<u8>],
    tokens: &[&[u8]],
    count: usize,
    target: impl Fn(&[u8]),
) -> usize {
    assert!(!corpus.is_empty(), "{name}: empty corpus");
    let seed = std::env::var("KUBEPKG_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x5eed_0016);
    let mut rng = Rng::new(seed);
    let total = runs(count);
    let mut pool: Vec<Vec<u8>> = corpus.to_vec();
    let mut done = 0;
    let mut slowest = (Duration::ZERO, Vec::new());
    while done < total {
        let base = &pool[rng.below(pool.len())];
        let input = mutate(&mut rng, base, tokens, corpus);
        let one = Instant::now();
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| target(&input)));
        if one.elapsed() > slowest.0 {
            slowest = (one.elapsed(), input.clone());
        }
        if r.is_err() {
            panic!(
                "{name}: panicked on input {:?} (seed {seed}, run {done})",
                String::from_utf8_lossy(&input)
            );
        }
        // Keep some mutants as bases, so mutations compound.
        if rng.below(8) == 0 && pool.len() < 4096 {
            pool.push(input);
        }
        done += 1;
    }
    eprintln!(
        "fuzz {name}: {done} inputs (seed {seed}); slowest {:.3} s: {:?}",
        slowest.0.as_secs_f64(),
        String::from_utf8_lossy(&slowest.1[..slowest.1.len().min(200)])
    );
    done
}
