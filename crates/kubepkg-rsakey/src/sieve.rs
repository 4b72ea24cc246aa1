//! The incremental sieve: the residues of a random start by every odd prime below a limit
//! (2^16, or 2^19 for the largest primes) are computed once, and from them the candidates
//! `start + 2k` (k below the search length) that a small prime divides, or for which `p − 1`
//! shares the factor 65537 with e, are struck out at once — no candidate is divided again.

use std::sync::OnceLock;

use crate::limbs;

/// The public exponent; it is prime, so gcd(p − 1, e) = 1 exactly when p mod e ≠ 1.
pub(crate) const E: u32 = 65_537;

/// The odd primes below 2^16 (6541) leave about 10 % of the odd candidates for Miller–Rabin (13 %
/// with those below 2^12); their residues are computed 16 bits of the start at a time.
const SMALL_LIMIT: u32 = 1 << 16;

/// The odd primes below 2^19 (43389) leave about 8.5 %; those above 2^16 take 13 bits of the start
/// at a time (r·2^13 + chunk stays below 2^32). Their residues cost more than the Miller–Rabin
/// rounds they save unless the rounds are long: they are used for primes of 2048 bits and more.
const LARGE_LIMIT: u32 = 1 << 19;

/// The sieving limit for primes of `bits` bits.
pub(crate) fn sieve_limit(bits: usize) -> u32 {
    if bits >= 2048 {
        LARGE_LIMIT
    } else {
        SMALL_LIMIT
    }
}

/// A sieving prime with the constant of its division-free remainder.
struct SmallPrime {
    p: u32,
    /// `⌈2^64 / p⌉`: `x mod p` for 32-bit x is the high half of `(m·x mod 2^64)·p` (Lemire,
    /// Kaser and Kurz, "Faster remainder by direct computation", 2019). Multiplications only,
    /// so the remainder takes the same time for every x.
    m: u64,
}

impl SmallPrime {
    fn new(p: u32) -> Self {
        SmallPrime {
            p,
            m: (u64::MAX / u64::from(p)).wrapping_add(1),
        }
    }

    fn rem(&self, x: u32) -> u32 {
        let low = self.m.wrapping_mul(u64::from(x));
        ((u128::from(low) * u128::from(self.p)) >> 64) as u32
    }
}

/// The odd primes below [`LARGE_LIMIT`] in order, computed once per process.
fn sieve_primes() -> &'static [SmallPrime] {
    static PRIMES: OnceLock<Vec<SmallPrime>> = OnceLock::new();
    PRIMES.get_or_init(|| {
        let limit = LARGE_LIMIT as usize;
        let mut composite = vec![false; limit];
        let mut primes = Vec::new();
        for n in 3..limit {
            if composite[n] || n.is_multiple_of(2) {
                continue;
            }
            primes.push(SmallPrime::new(n as u32));
            for multiple in (n * n..limit).step_by(2 * n) {
                composite[multiple] = true;
            }
        }
        primes
    })
}

/// `x mod p` for each of `primes`, reading x `chunk_bits` at a time from the top; every
/// intermediate `r·2^chunk_bits + chunk` (r < p) must fit in 32 bits. The chunk loop is the
/// outer one so the primes' remainders, independent of each other, overlap in the pipeline.
fn residues<const N: usize>(x: &[u64; N], primes: &[SmallPrime], chunk_bits: usize) -> Vec<u32> {
    let mut res = vec![0u32; primes.len()];
    for chunk in limbs::chunks_from_top(x, chunk_bits) {
        let chunk = chunk as u32;
        for (r, sp) in res.iter_mut().zip(primes) {
            *r = sp.rem((*r << chunk_bits) | chunk);
        }
    }
    res
}

/// `x mod e`.
fn residue_mod_e<const N: usize>(x: &[u64; N]) -> u32 {
    let e = u128::from(E);
    let r = x
        .iter()
        .rev()
        .fold(0u128, |r, &limb| ((r << 64) | u128::from(limb)) % e);
    r as u32
}

/// `k` such that the offsets `k, k + p, k + 2p, …` are those where `start + 2k ≡ target (mod p)`,
/// given `r = start mod p`.
fn first_offset(r: u32, target: u32, p: u32) -> usize {
    let t = (target + p - r) % p; // 2k ≡ t (mod p)
    let k = if t.is_multiple_of(2) {
        t / 2
    } else {
        (t + p) / 2
    };
    k as usize
}

/// For k in 0..len, whether `start + 2k` survives the sieve: no odd prime below `limit` (one
/// of [`sieve_limit`]'s) divides it and it is not 1 mod e.
pub(crate) fn survivors<const N: usize>(start: &[u64; N], len: usize, limit: u32) -> Vec<bool> {
    let primes = sieve_primes();
    let small = primes.partition_point(|sp| sp.p < SMALL_LIMIT);
    let end = primes.partition_point(|sp| sp.p < limit);
    let (small, large) = (&primes[..small], &primes[small..end.max(small)]);
    let mut res = residues(start, small, 16);
    res.extend(residues(start, large, 13));
    let mut alive = vec![true; len];
    let mut strike = |first: usize, step: usize| {
        for k in (first..len).step_by(step) {
            alive[k] = false;
        }
    };
    for (sp, r) in small.iter().chain(large).zip(res) {
        strike(first_offset(r, 0, sp.p), sp.p as usize);
    }
    strike(first_offset(residue_mod_e(start), 1, E), E as usize);
    alive
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remainders_match_division() {
        let e = SmallPrime::new(E);
        for sp in sieve_primes().iter().step_by(97).chain([&e]) {
            for x in [
                0u32,
                1,
                2,
                sp.p - 1,
                sp.p,
                sp.p + 1,
                65_535,
                1 << 31,
                u32::MAX,
            ] {
                assert_eq!(sp.rem(x), x % sp.p, "{x} mod {}", sp.p);
            }
        }
    }

    #[test]
    fn sieve_primes_are_the_odd_primes_below_2_19() {
        let primes = sieve_primes();
        assert_eq!(primes.len(), 43_389);
        assert_eq!(primes[0].p, 3);
        assert_eq!(primes[6540].p, 65_521);
        assert_eq!(primes[6541].p, 65_537);
        assert_eq!(primes[43_388].p, 524_287);
    }

    /// Every offset's verdict against plain u128 arithmetic, for a 128-bit start and a limit.
    fn check_survivors(start: u128, limit: u32, len: usize) {
        let limbs = [start as u64, (start >> 64) as u64];
        let primes: Vec<u64> = sieve_primes()
            .iter()
            .map(|sp| u64::from(sp.p))
            .filter(|&p| p < u64::from(limit))
            .collect();
        let start_mod: Vec<u64> = primes
            .iter()
            .map(|&p| (start % u128::from(p)) as u64)
            .collect();
        let e = u64::from(E);
        assert_eq!(u128::from(residue_mod_e(&limbs)), start % u128::from(e));
        let start_mod_e = (start % u128::from(e)) as u64;
        let alive = survivors(&limbs, len, limit);
        for (k, &alive) in alive.iter().enumerate() {
            let step = 2 * k as u64;
            let expected = (start_mod_e + step) % e != 1
                && primes
                    .iter()
                    .zip(&start_mod)
                    .all(|(&p, &r)| !(r + step).is_multiple_of(p));
            assert_eq!(alive, expected, "offset {k}, limit {limit}");
        }
        assert!(alive.iter().any(|&a| a) && alive.iter().any(|&a| !a));
    }

    #[test]
    fn survivors_are_exactly_the_candidates_without_small_factors() {
        for start in [
            0xc3a5_5a5a_0123_4567_89ab_cdef_f00d_1235u128,
            0xffff_ffff_ffff_ffff_ffff_ffff_ffff_0001,
        ] {
            check_survivors(start, SMALL_LIMIT, 3000);
            check_survivors(start, LARGE_LIMIT, 800);
        }
        // The residues of a full-width start, by both chunk widths, against division.
        let x = [
            0x0123_4567_89ab_cdefu64,
            0xfedc_ba98_7654_3210,
            0xdead_beef_f00d_cafe,
        ];
        let value = |p: u32| {
            x.iter()
                .rev()
                .fold(0u128, |r, &l| ((r << 64) | u128::from(l)) % u128::from(p)) as u32
        };
        let primes = sieve_primes();
        for (chunk_bits, range) in [(16, &primes[..6541]), (13, &primes[6541..])] {
            let res = residues(&x, range, chunk_bits);
            for (sp, r) in range.iter().zip(res) {
                assert_eq!(r, value(sp.p), "mod {}", sp.p);
            }
        }
    }
}
