//! The incremental sieve: the residues of a random start by every odd prime below 2^16 are
//! computed once, and from them the candidates `start + 2k` (k below the search length) that a
//! small prime divides, or for which `p − 1` shares the factor 65537 with e, are struck out at
//! once — no candidate is divided again.

use std::sync::OnceLock;

/// The public exponent; it is prime, so gcd(p − 1, e) = 1 exactly when p mod e ≠ 1.
pub(crate) const E: u32 = 65_537;

/// The sieving primes stop below 2^16: with them about 10 % of the odd candidates are left for
/// Miller–Rabin (13 % with the primes below 2^12), and residues stay 16-bit values.
const SIEVE_LIMIT: usize = 1 << 16;

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

/// The odd primes below [`SIEVE_LIMIT`] (6541 of them), computed once per process.
fn sieve_primes() -> &'static [SmallPrime] {
    static PRIMES: OnceLock<Vec<SmallPrime>> = OnceLock::new();
    PRIMES.get_or_init(|| {
        let mut composite = vec![false; SIEVE_LIMIT];
        let mut primes = Vec::new();
        for n in 3..SIEVE_LIMIT {
            if composite[n] || n.is_multiple_of(2) {
                continue;
            }
            primes.push(SmallPrime::new(n as u32));
            for multiple in (n * n..SIEVE_LIMIT).step_by(2 * n) {
                composite[multiple] = true;
            }
        }
        primes
    })
}

/// `x mod p` for every sieving prime, reading x 16 bits at a time from the top so that every
/// intermediate `r·2^16 + chunk` (r < p < 2^16) fits in 32 bits.
fn residues<const N: usize>(x: &[u64; N], primes: &[SmallPrime]) -> Vec<u32> {
    let mut res = vec![0u32; primes.len()];
    for limb in x.iter().rev() {
        for shift in [48, 32, 16, 0] {
            let chunk = ((limb >> shift) & 0xffff) as u32;
            for (r, sp) in res.iter_mut().zip(primes) {
                *r = sp.rem((*r << 16) | chunk);
            }
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

/// For k in 0..len, whether `start + 2k` survives the sieve: no odd prime below 2^16 divides it
/// and it is not 1 mod e.
pub(crate) fn survivors<const N: usize>(start: &[u64; N], len: usize) -> Vec<bool> {
    let primes = sieve_primes();
    let mut alive = vec![true; len];
    let mut strike = |first: usize, step: usize| {
        for k in (first..len).step_by(step) {
            alive[k] = false;
        }
    };
    for (sp, r) in primes.iter().zip(residues(start, primes)) {
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
    fn sieve_primes_are_the_odd_primes_below_2_16() {
        let primes = sieve_primes();
        assert_eq!(primes.len(), 6541);
        assert_eq!(primes[0].p, 3);
        assert_eq!(primes[6540].p, 65_521);
    }

    #[test]
    fn survivors_are_exactly_the_candidates_without_small_factors() {
        // A 128-bit start: check every offset against plain u128 arithmetic.
        let start: u128 = 0xc3a5_5a5a_0123_4567_89ab_cdef_f00d_1235;
        let limbs = [start as u64, (start >> 64) as u64];
        let mut primes: Vec<u128> = sieve_primes().iter().map(|sp| u128::from(sp.p)).collect();
        let res = residues(&limbs, sieve_primes());
        for (p, r) in primes.iter().zip(&res) {
            assert_eq!(u128::from(*r), start % p);
        }
        assert_eq!(u128::from(residue_mod_e(&limbs)), start % u128::from(E));
        primes.push(u128::from(E));
        let alive = survivors(&limbs, 3000);
        for (k, &alive) in alive.iter().enumerate() {
            let c = start + 2 * k as u128;
            let expected = primes.iter().all(|&p| {
                if p == u128::from(E) {
                    c % p != 1
                } else {
                    !c.is_multiple_of(p)
                }
            });
            assert_eq!(alive, expected, "offset {k}");
        }
        assert!(alive.iter().any(|&a| a) && alive.iter().any(|&a| !a));
    }
}
