//! Random probable primes as FIPS 186-5 Appendix A.1.3 makes them, tested by Miller–Rabin
//! (Appendix B.3.1) with random bases.

use rand::{CryptoRng, RngCore};

use crate::Error;
use crate::limbs;
use crate::montgomery::Modulus;
use crate::sieve;

/// How many random starts one prime may take before the search gives up: each start offers
/// 5·bits candidates (about 14 times the expected distance to the next prime), so a second start
/// is rare and this many means the random source is broken.
const MAX_STARTS: usize = 64;

/// Miller–Rabin rounds for a prime of `bits` bits, FIPS 186-5 Table B.1 (M-R tests only) in the
/// column matching the key's security strength: 5 rounds for 1024-bit primes (error probability
/// 2^-112, 2048-bit keys), 4 for 1536-bit (2^-128, 3072-bit keys) and 4 for 2048-bit primes
/// (2^-144, 4096-bit keys). The table stops at 2048-bit primes; larger ones keep its last count,
/// the error bound only shrinking as primes grow.
pub(crate) fn miller_rabin_rounds(bits: usize) -> usize {
    if bits <= 1024 { 5 } else { 4 }
}

/// A random prime of exactly 64·N bits whose top two bits are set (so p ≥ √2·2^(64N−1) and a
/// product of two such primes has exactly 128·N bits) and with gcd(p − 1, 65537) = 1.
///
/// FIPS 186-5 A.1.3 steps 4.1–4.7, except that the candidates are not drawn afresh each (see
/// the crate docs): from a random odd start the candidates start, start + 2, … are taken in
/// order (at most 5·bits of them, the standard's limit), each sieved by the small primes and e,
/// then tested with `rounds` Miller–Rabin rounds; when a start runs out a new one is drawn.
pub(crate) fn random_prime<const N: usize>(
    rng: &mut (impl RngCore + CryptoRng),
    rounds: usize,
) -> Result<[u64; N], Error> {
    let len = 5 * 64 * N;
    for _ in 0..MAX_STARTS {
        let start = random_start::<N>(rng)?;
        let alive = sieve::survivors(&start, len, sieve::sieve_limit(64 * N));
        for k in (0..len).filter(|&k| alive[k]) {
            let (candidate, carried) = limbs::add_small(&start, 2 * k as u64);
            if carried || limbs::bit_len(&candidate) != 64 * N {
                break;
            }
            if is_probable_prime::<N>(&candidate, rounds, rng)? {
                return Ok(candidate);
            }
        }
    }
    Err(Error::Exhausted)
}

/// N random limbs with the top two bits and the low bit set.
fn random_start<const N: usize>(rng: &mut (impl RngCore + CryptoRng)) -> Result<[u64; N], Error> {
    let mut x = random_limbs::<N>(rng)?;
    x[N - 1] |= 0b11 << 62;
    x[0] |= 1;
    Ok(x)
}

fn random_limbs<const N: usize>(rng: &mut (impl RngCore + CryptoRng)) -> Result<[u64; N], Error> {
    let mut bytes = vec![0u8; 8 * N];
    rng.try_fill_bytes(&mut bytes)
        .map_err(|e| Error::Random(e.to_string()))?;
    let mut x = [0u64; N];
    for (limb, chunk) in x.iter_mut().zip(bytes.chunks_exact(8)) {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        *limb = u64::from_le_bytes(word);
    }
    Ok(x)
}

/// Miller–Rabin with `rounds` random bases (FIPS 186-5 B.3.1): false means w is composite,
/// true that it is prime with the error probability the round count was chosen for. w must be
/// odd and above 3; anything else is reported composite.
///
/// A round with base 2 comes first: it rejects nearly every composite the sieve lets through
/// at about four fifths of a random-base round's cost (doublings in place of table
/// multiplications). It is extra — a w that passes it still takes all the random-base rounds —
/// so the verdict and its error bound are those of the random rounds.
pub(crate) fn is_probable_prime<const N: usize>(
    w: &[u64; N],
    rounds: usize,
    rng: &mut (impl RngCore + CryptoRng),
) -> Result<bool, Error> {
    let Some(test) = MillerRabin::<N>::new(w) else {
        return Ok(false);
    };
    if !test.passes_base_two() {
        return Ok(false);
    }
    for _ in 0..rounds {
        if !test.passes(&random_base(w, rng)?) {
            return Ok(false);
        }
    }
    Ok(true)
}

/// The state of Miller–Rabin for one odd w > 3: w − 1 = 2^a·m with m odd.
struct MillerRabin<const N: usize> {
    modulus: Modulus<N>,
    m: [u64; N],
    a: usize,
    minus_one: [u64; N],
}

impl<const N: usize> MillerRabin<N> {
    fn new(w: &[u64; N]) -> Option<Self> {
        if limbs::bit_len(w) < 3 {
            return None;
        }
        let modulus = Modulus::<N>::new(*w)?;
        let w_minus_1 = limbs::sub(w, &one_limbs()).0;
        let a = limbs::trailing_zeros(&w_minus_1);
        Some(MillerRabin {
            m: limbs::shr(&w_minus_1, a),
            a,
            minus_one: modulus.minus_one(),
            modulus,
        })
    }

    /// One round with base 1 < b < w − 1: whether w is a strong probable prime to base b, that
    /// is b^m ≡ 1 or b^(m·2^j) ≡ −1 (mod w) for some j < a. The exponentiation runs in time
    /// independent of m's bits, since the w that passes becomes a secret prime; the squarings
    /// after it stop once the verdict is known.
    fn passes(&self, b: &[u64; N]) -> bool {
        self.verdict(self.modulus.pow(&self.modulus.montgomery_form(b), &self.m))
    }

    /// [`Self::passes`] for b = 2, on the cheaper exponentiation of 2.
    fn passes_base_two(&self) -> bool {
        self.verdict(self.modulus.pow_of_two(&self.m))
    }

    /// Whether `z = b^m` (Montgomery form) makes w a strong probable prime to base b.
    fn verdict(&self, mut z: [u64; N]) -> bool {
        let one = self.modulus.one();
        if z == *one || z == self.minus_one {
            return true;
        }
        for _ in 1..self.a {
            z = self.modulus.sqr(&z);
            if z == self.minus_one {
                return true;
            }
            if z == *one {
                return false;
            }
        }
        false
    }
}

fn one_limbs<const N: usize>() -> [u64; N] {
    let mut one = [0u64; N];
    one[0] = 1;
    one
}

/// Draws of a Miller–Rabin base before giving up: each is in range with probability at least 1/4
/// (3/4 for the candidates of a key), so running out means the random source is broken.
const MAX_BASE_DRAWS: usize = 128;

/// A random base 1 < b < w − 1 of w's bit length, drawn again when out of range (B.3.1 step 4).
fn random_base<const N: usize>(
    w: &[u64; N],
    rng: &mut (impl RngCore + CryptoRng),
) -> Result<[u64; N], Error> {
    let bits = limbs::bit_len(w);
    let w_minus_1 = limbs::sub(w, &one_limbs()).0;
    let two = limbs::add_small(&one_limbs::<N>(), 1).0;
    for _ in 0..MAX_BASE_DRAWS {
        let mut b = random_limbs::<N>(rng)?;
        for (i, limb) in b.iter_mut().enumerate() {
            let keep = bits.saturating_sub(64 * i).min(64);
            *limb &= if keep == 64 {
                u64::MAX
            } else {
                (1u64 << keep) - 1
            };
        }
        if !limbs::less(&b, &two) && limbs::less(&b, &w_minus_1) {
            return Ok(b);
        }
    }
    Err(Error::Exhausted)
}

#[cfg(test)]
mod tests {
    use rand::{SeedableRng, rngs::StdRng};
    use rsa::BigUint;

    use super::*;

    /// RFC 3526 section 2: the 1536-bit MODP group's prime, 2^1536 − 2^1472 − 1 +
    /// 2^64·(⌊2^1406·π⌋ + 741804), a safe prime.
    const MODP_1536: &str = "ffffffffffffffffc90fdaa22168c234c4c6628b80dc1cd129024e088a67cc74020bbea63b139b22514a08798e3404ddef9519b3cd3a431b302b0a6df25f14374fe1356d6d51c245e485b576625e7ec6f44c42e9a637ed6b0bff5cb6f406b7edee386bfb5a899fa5ae9f24117c4b1fe649286651ece45b3dc2007cb8a163bf0598da48361c55d39a69163fa8fd24cf5f83655d23dca3ad961c62f356208552bb9ed529077096966d670c354e4abc9804f1746c08ca237327ffffffffffffffff";

    /// RFC 3526 section 3: the 2048-bit MODP group's prime, 2^2048 − 2^1984 − 1 +
    /// 2^64·(⌊2^1918·π⌋ + 124476).
    const MODP_2048: &str = "ffffffffffffffffc90fdaa22168c234c4c6628b80dc1cd129024e088a67cc74020bbea63b139b22514a08798e3404ddef9519b3cd3a431b302b0a6df25f14374fe1356d6d51c245e485b576625e7ec6f44c42e9a637ed6b0bff5cb6f406b7edee386bfb5a899fa5ae9f24117c4b1fe649286651ece45b3dc2007cb8a163bf0598da48361c55d39a69163fa8fd24cf5f83655d23dca3ad961c62f356208552bb9ed529077096966d670c354e4abc9804f1746c08ca18217c32905e462e36ce3be39e772c180e86039b2783a2ec07a28fb5c55df06f4c52c9de2bcbf6955817183995497cea956ae515d2261898fa051015728e5a8aacaa68ffffffffffffffff";

    fn hex<const N: usize>(s: &str) -> [u64; N] {
        limbs::from_be_bytes(
            &BigUint::parse_bytes(s.as_bytes(), 16)
                .unwrap()
                .to_bytes_be(),
        )
        .unwrap()
    }

    fn mersenne<const N: usize>(exponent: u32) -> [u64; N] {
        let m = (BigUint::from(1u32) << exponent as usize) - BigUint::from(1u32);
        limbs::from_be_bytes(&m.to_bytes_be()).unwrap()
    }

    fn product<const N: usize>(a: &[u64; N], b: &[u64; N]) -> [u64; N] {
        let big = |x: &[u64; N]| BigUint::from_bytes_be(&limbs::to_be_bytes(x));
        limbs::from_be_bytes(&(big(a) * big(b)).to_bytes_be()).unwrap()
    }

    fn probable_prime<const N: usize>(w: &[u64; N]) -> bool {
        let mut rng = StdRng::seed_from_u64(7);
        is_probable_prime::<N>(w, 20, &mut rng).unwrap()
    }

    fn strong_probable_prime_to(w: u64, base: u64) -> bool {
        let test = MillerRabin::<1>::new(&[w]).unwrap();
        if base == 2 {
            assert_eq!(test.passes(&[2]), test.passes_base_two(), "{w}");
        }
        test.passes(&[base])
    }

    #[test]
    fn known_primes_pass() {
        for p in [
            5u64,
            7,
            65_537,
            (1 << 31) - 1,
            (1 << 61) - 1,
            18_446_744_073_709_551_557,
        ] {
            assert!(probable_prime::<1>(&[p]), "{p}");
        }
        assert!(probable_prime::<16>(&mersenne(521)));
        assert!(probable_prime::<16>(&mersenne(607)));
        assert!(probable_prime::<24>(&mersenne(1279)));
        assert!(probable_prime::<24>(&hex(MODP_1536)));
        assert!(probable_prime::<32>(&hex(MODP_2048)));
    }

    #[test]
    fn known_composites_fail() {
        // Carmichael numbers, strong pseudoprimes to base 2 (2047 = 23·89; 3215031751 =
        // 151·751·28351, to bases 2, 3, 5, 7; 3825123056546413051 = 149491·747451·34233211, to
        // every prime base up to 31), a prime square and small cases.
        for c in [
            561u64,
            1105,
            1729,
            41_041,
            825_265,
            321_197_185,
            2047,
            3_215_031_751,
            3_825_123_056_546_413_051,
            65_537 * 65_537,
            9,
            15,
            21,
        ] {
            assert!(!probable_prime::<1>(&[c]), "{c}");
        }
        assert!(!probable_prime::<1>(&[0]) && !probable_prime::<1>(&[1]));
        assert!(!probable_prime::<1>(&[2]) && !probable_prime::<1>(&[3]));
        assert!(!probable_prime::<1>(&[4]) && !probable_prime::<1>(&[1 << 40]));
        // Products of two large primes.
        let m521: [u64; 24] = mersenne(521);
        assert!(!probable_prime::<24>(&product(&m521, &mersenne(607))));
        assert!(!probable_prime::<24>(&product(&m521, &m521)));
        let m1536: [u64; 64] = hex(MODP_1536);
        assert!(!probable_prime::<64>(&product(&m1536, &hex(MODP_2048))));
        assert!(!probable_prime::<32>(&mersenne(2048)));
        assert!(!probable_prime::<16>(&mersenne(1023)));
    }

    #[test]
    fn single_rounds_follow_the_strong_probable_prime_definition() {
        assert!(strong_probable_prime_to(2047, 2));
        assert!(!strong_probable_prime_to(2047, 3));
        for base in [2, 3, 5, 7] {
            assert!(strong_probable_prime_to(3_215_031_751, base), "base {base}");
        }
        assert!(!strong_probable_prime_to(3_215_031_751, 11));
        assert!(strong_probable_prime_to(3_825_123_056_546_413_051, 31));
        assert!(!strong_probable_prime_to(3_825_123_056_546_413_051, 37));
        // 561 = 3·11·17 passes Fermat's test to base 2 but not the strong test.
        assert!(!strong_probable_prime_to(561, 2));
        assert!(strong_probable_prime_to((1 << 61) - 1, 3));
    }

    #[test]
    fn bases_are_in_range() {
        let mut rng = StdRng::seed_from_u64(3);
        for w in [5u64, 7, 9, 1 << 20 | 1, u64::MAX] {
            for _ in 0..200 {
                let [b] = random_base(&[w], &mut rng).unwrap();
                assert!(b >= 2 && b <= w - 2, "{b} for {w}");
            }
        }
    }

    #[test]
    fn random_primes_have_the_width_top_bits_and_e_condition() {
        let mut rng = StdRng::seed_from_u64(11);
        for _ in 0..3 {
            let p = random_prime::<16>(&mut rng, miller_rabin_rounds(1024)).unwrap();
            assert_eq!(p[15] >> 62, 0b11);
            let pb = BigUint::from_bytes_be(&limbs::to_be_bytes(&p));
            assert_ne!(&pb % BigUint::from(sieve::E), BigUint::from(1u32));
            // An independent check: Fermat to bases 2, 3 and 5 with num-bigint-dig.
            for base in [2u32, 3, 5] {
                let one = BigUint::from(1u32);
                assert_eq!(BigUint::from(base).modpow(&(&pb - &one), &pb), one);
            }
        }
    }

    #[test]
    fn table_b1_round_counts() {
        assert_eq!(miller_rabin_rounds(1024), 5);
        assert_eq!(miller_rabin_rounds(1536), 4);
        assert_eq!(miller_rabin_rounds(2048), 4);
        assert_eq!(miller_rabin_rounds(4096), 4);
    }
}
