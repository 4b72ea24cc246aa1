//! RSA key generation: the keys Sprig's `genCA`, `genSelfSignedCert`, `genSignedCert` (2048
//! bits) and `genPrivateKey "rsa"` (4096 bits) make with Go's `rsa.GenerateKey`, here with public
//! exponent 65537 and sizes 2048, 3072, 4096 and 8192 bits ([`generate`]).
//!
//! The primes follow FIPS 186-5 Appendix A.1.3 ("random primes that are probably prime"):
//!
//! - p and q have nlen/2 bits with the top two set, so each is at least √2·2^(nlen/2−1) and n
//!   has exactly nlen bits;
//! - gcd(p − 1, e) = 1, checked as p mod 65537 ≠ 1 (e is prime);
//! - at most 5·(nlen/2) candidates per random start (the standard's loop limit; a fresh start
//!   follows instead of failing). One deliberate departure: A.1.3 draws every candidate afresh,
//!   where this search takes the odd numbers after one random start in order (the incremental
//!   sieve's point). Primes that follow long gaps are then slightly more likely, a known and
//!   accepted bias of incremental search; it is why this is not a FIPS-validated generator;
//! - Miller–Rabin with random bases (Appendix B.3.1), the rounds of Table B.1 at the key's
//!   security strength: 5 for 1024-bit primes, 4 for 1536- and 2048-bit primes (4 also for the
//!   4096-bit primes of 8192-bit keys, past the table's end);
//! - |p − q| > 2^(nlen/2−100), else q is drawn again;
//! - d = e⁻¹ mod lcm(p − 1, q − 1) (by the `rsa` crate's `RsaPrivateKey::from_p_q`, which also
//!   computes the CRT values) and d > 2^(nlen/2), else both primes are drawn again.
//!
//! The search: a random odd start with the top bits set, then its residues by the odd primes
//! below 2^16 (6541; below 2^19, 43389, for primes of 2048 bits and more) computed once, which
//! strike out every candidate start + 2k that one of them divides (about 90 %) without dividing
//! again per candidate; the survivors go to Miller–Rabin in order, a cheap round with base 2
//! first. The arithmetic is fixed-width: u64 limbs, u128 products, Montgomery multiplication and
//! a dedicated squaring at the prime's width (16 limbs for 1024-bit primes, 32 for 2048-bit), and
//! a 5-bit fixed-window exponentiation that processes every exponent bit and reads every table
//! entry under a mask, so its branches and memory accesses do not depend on the exponent (the
//! candidate that passes becomes a secret prime). On x86-64 processors with AVX-512 IFMA the
//! Miller–Rabin exponentiations of 1024- and 2048-bit candidates run on 52-bit limbs in vectors
//! instead (`montgomery/ifma.rs`, chosen at run time; three to four times faster), the 64-bit
//! code staying the path everywhere else and the tests' reference. The final one-off steps (n, λ, d and the CRT
//! values) use the `rsa` crate's variable-time `num-bigint-dig`, as its own generator does.
//! Randomness comes from the operating system (`OsRng`).
//!
//! Why not a crate: the `rsa` crate's own generator (a `num-bigint-dig` prime search) was about
//! twice as slow as Go's, and AWS-LC (`aws-lc-rs`), used before this crate, took 2.29 times Go's
//! median for 2048-bit keys (213 against 93 ms) besides a slow C build. Go's generator is the
//! bar: `bench/rsa-keygen.sh` compares the two. OpenSSL's `rsa -check` verifies the keys in
//! kubepkg-funcs' tests.

#![deny(unsafe_code)]

mod limbs;
mod montgomery;
mod prime;
mod sieve;

use rand::{CryptoRng, RngCore};
use rsa::traits::{PrivateKeyParts, PublicKeyParts};
use rsa::{BigUint, RsaPrivateKey};

/// Why a key could not be made.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A modulus size other than 2048, 3072, 4096 or 8192 bits.
    #[error("unsupported size {0}")]
    UnsupportedSize(usize),
    /// The operating system's random source failed.
    #[error("reading random bytes: {0}")]
    Random(String),
    /// The search ran far past any plausible length: the random source repeats itself.
    #[error("no primes meeting FIPS 186-5's conditions were found; the random source looks broken")]
    Exhausted,
    /// The `rsa` crate refused the primes (it cannot for primes this crate accepts).
    #[error("assembling the key: {0}")]
    Assemble(#[source] rsa::Error),
    /// A check that cannot fail did (a bug).
    #[error("internal error: {0}")]
    Internal(&'static str),
}

/// The public exponent.
pub const PUBLIC_EXPONENT: u32 = sieve::E;

/// Key attempts (pairs of primes) before giving up: a pair is redrawn only when |p − q| or d is
/// too small, each about 2^-97 likely or less, so running out means the random source repeats.
const MAX_KEY_ATTEMPTS: usize = 8;

/// A new RSA key of `bits` bits (2048, 3072, 4096 or 8192) with public exponent 65537, from the
/// operating system's random source.
pub fn generate(bits: usize) -> Result<RsaPrivateKey, Error> {
    generate_with_rng(&mut rand::rngs::OsRng, bits)
}

/// [`generate`] with the given random source.
pub fn generate_with_rng(
    rng: &mut (impl RngCore + CryptoRng),
    bits: usize,
) -> Result<RsaPrivateKey, Error> {
    match bits {
        2048 => generate_sized::<16>(rng),
        3072 => generate_sized::<24>(rng),
        4096 => generate_sized::<32>(rng),
        8192 => generate_sized::<64>(rng),
        other => Err(Error::UnsupportedSize(other)),
    }
}

/// A key whose primes have N limbs: nlen = 128·N.
fn generate_sized<const N: usize>(
    rng: &mut (impl RngCore + CryptoRng),
) -> Result<RsaPrivateKey, Error> {
    let half = 64 * N;
    let rounds = prime::miller_rabin_rounds(half);
    for _ in 0..MAX_KEY_ATTEMPTS {
        let p = big(&prime::random_prime::<N>(rng, rounds)?);
        let q = far_enough_prime::<N>(rng, rounds, &p)?;
        let key = RsaPrivateKey::from_p_q(p, q, BigUint::from(PUBLIC_EXPONENT))
            .map_err(Error::Assemble)?;
        if key.n().bits() != 2 * half {
            // Top two bits set in both primes make this impossible.
            return Err(Error::Internal("the modulus has the wrong size"));
        }
        if *key.d() > BigUint::from(1u32) << half {
            return Ok(key);
        }
    }
    Err(Error::Exhausted)
}

/// A prime q with |p − q| > 2^(nlen/2 − 100) (A.1.3 step 5.5), drawing again otherwise.
fn far_enough_prime<const N: usize>(
    rng: &mut (impl RngCore + CryptoRng),
    rounds: usize,
    p: &BigUint,
) -> Result<BigUint, Error> {
    let bound = BigUint::from(1u32) << (64 * N - 100);
    for _ in 0..MAX_KEY_ATTEMPTS {
        let q = big(&prime::random_prime::<N>(rng, rounds)?);
        let distance = if q > *p { &q - p } else { p - &q };
        if distance > bound {
            return Ok(q);
        }
    }
    Err(Error::Exhausted)
}

fn big<const N: usize>(x: &[u64; N]) -> BigUint {
    BigUint::from_bytes_be(&limbs::to_be_bytes(x))
}

#[cfg(test)]
mod tests {
    use rand::{SeedableRng, rngs::StdRng};

    use super::*;

    /// The FIPS 186-5 A.1.3 properties of a key, checked with num-bigint-dig arithmetic.
    fn assert_fips_key(key: &RsaPrivateKey, nlen: usize) {
        let one = BigUint::from(1u32);
        let e = BigUint::from(PUBLIC_EXPONENT);
        let (n, d) = (key.n(), key.d());
        let [p, q] = key.primes() else {
            panic!("{} primes", key.primes().len())
        };
        assert_eq!(n.bits(), nlen);
        assert_eq!(&(p * q), n);
        for prime in [p, q] {
            assert_eq!(prime.bits(), nlen / 2);
            assert_eq!(prime >> (nlen / 2 - 2), BigUint::from(3u32), "top two bits");
            // e·d ≡ 1 modulo p − 1 and q − 1, hence modulo λ(n) = lcm(p − 1, q − 1).
            assert_eq!((&e * d) % (prime - &one), one);
        }
        let distance = if p > q { p - q } else { q - p };
        assert!(distance > &one << (nlen / 2 - 100), "|p − q| too small");
        assert!(*d > &one << (nlen / 2), "d too small");
        assert_eq!(key.e(), &e);
    }

    #[test]
    fn keys_meet_fips_186_5() {
        let mut rng = StdRng::seed_from_u64(2048);
        for bits in [2048, 2048, 2048, 3072, 4096] {
            assert_fips_key(&generate_with_rng(&mut rng, bits).unwrap(), bits);
        }
        assert_fips_key(&generate(2048).unwrap(), 2048);
    }

    #[test]
    fn other_sizes_are_errors() {
        for bits in [0, 1024, 2047, 2049, 4095, 16_384, usize::MAX] {
            let err = generate(bits).unwrap_err();
            assert!(matches!(err, Error::UnsupportedSize(b) if b == bits));
            assert_eq!(err.to_string(), format!("unsupported size {bits}"));
        }
    }

    /// A random source that repeats one byte, or fails.
    struct BrokenRng(Option<u8>);

    impl RngCore for BrokenRng {
        fn next_u32(&mut self) -> u32 {
            u32::from(self.0.unwrap_or(0))
        }
        fn next_u64(&mut self) -> u64 {
            u64::from(self.0.unwrap_or(0))
        }
        fn fill_bytes(&mut self, dest: &mut [u8]) {
            dest.fill(self.0.unwrap_or(0));
        }
        fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), rand::Error> {
            match self.0 {
                Some(b) => {
                    dest.fill(b);
                    Ok(())
                }
                None => Err(rand::Error::new(std::io::Error::other("no entropy"))),
            }
        }
    }

    impl CryptoRng for BrokenRng {}

    #[test]
    fn broken_random_sources_are_errors() {
        for byte in [0u8, 0xff, 0x5a] {
            let err = generate_with_rng(&mut BrokenRng(Some(byte)), 2048).unwrap_err();
            assert!(matches!(err, Error::Exhausted), "{err:?}");
        }
        let err = generate_with_rng(&mut BrokenRng(None), 2048).unwrap_err();
        assert!(matches!(err, Error::Random(_)), "{err:?}");
    }
}
