//! Montgomery arithmetic on AVX-512 IFMA (`vpmadd52luq`/`vpmadd52huq`: the low or high 52 bits
//! of a 52×52-bit product added to a 64-bit lane), for the 1024- and 2048-bit moduli of 2048-
//! and 4096-bit keys, chosen at run time when the processor has it.
//!
//! A value is held as 52-bit limbs, four to a 256-bit vector (V vectors, 208·V bits, at least two
//! bits more than the modulus), with `R' = 2^(208·V)`. The multiplication scans the multiplier
//! limb by limb (operand scanning): the low halves of `a·b[i]` and `y·m` go into the running
//! sum, y chosen to clear its lowest limb, the sum moves down one limb, and the high halves
//! follow at the moved positions. Lanes have twelve spare bits, so no carry is propagated until
//! the end. The result is almost reduced: below 2m for inputs below 4m (`R' > 16m`), which lets
//! an exponentiation double without reducing and reduce once at the end.
//!
//! Values enter from [`Modulus`]'s Montgomery form `x·R` by `2^(208·V − 64·N)` doublings and
//! leave by a multiplication with `R mod m`, once per exponentiation.

use std::arch::x86_64::{
    __m256i, _mm256_add_epi64, _mm256_alignr_epi64, _mm256_and_si256, _mm256_andnot_si256,
    _mm256_cmpeq_epu64_mask, _mm256_cmpgt_epu64_mask, _mm256_extract_epi64, _mm256_madd52hi_epu64,
    _mm256_madd52lo_epu64, _mm256_mask_add_epi64, _mm256_mask_set1_epi64, _mm256_or_si256,
    _mm256_set_epi64x, _mm256_set1_epi64x, _mm256_setzero_si256, _mm256_slli_epi64,
    _mm256_srli_epi64,
};

use super::{Modulus, TABLE, WINDOW};
use crate::limbs;

/// The bits of a limb.
const LIMB_BITS: usize = 52;
const LIMB_MASK: u64 = (1 << LIMB_BITS) - 1;

/// A number as 52-bit limbs, least significant first, in groups of four (one vector each).
type Limbs<const V: usize> = [[u64; 4]; V];

/// The same in vectors, the form the arithmetic works on.
type Vectors<const V: usize> = [__m256i; V];

/// Whether this processor has the instructions (detected once, then cached by std).
pub(super) fn available() -> bool {
    is_x86_feature_detected!("avx512f")
        && is_x86_feature_detected!("avx512vl")
        && is_x86_feature_detected!("avx512ifma")
}

/// What to compute on IFMA, in [`Modulus`]'s Montgomery form.
pub(super) enum Op<'a, const N: usize> {
    /// `2^exp`.
    PowOfTwo(&'a [u64; N]),
    /// `base^exp` for base in Montgomery form.
    Pow(&'a [u64; N], &'a [u64; N]),
    /// `a·b·R⁻¹` for a, b below m: the multiplication alone, for tests.
    #[cfg(test)]
    Mul(&'a [u64; N], &'a [u64; N]),
    /// `Σ lanes[j]·2^(52·j)` for lanes below 2^60, from a sum in lanes (as the multiplication
    /// leaves it) made limbs of 52 bits: the normalization alone, for tests.
    #[cfg(test)]
    Normalize(&'a [u64; N]),
}

/// `op` on IFMA, or `None` when the processor lacks it or N is not a width this path takes (16
/// and 32 limbs).
pub(super) fn run<const N: usize>(modulus: &Modulus<N>, op: Op<'_, N>) -> Option<[u64; N]> {
    if !matches!(N, 16 | 32) || !available() {
        return None;
    }
    // SAFETY: `available` found avx512f, avx512vl and avx512ifma on this processor, the features
    // `run_v` is compiled for.
    #[allow(unsafe_code)]
    let out = unsafe {
        if N == 16 {
            run_v::<N, 5>(modulus, op)
        } else {
            run_v::<N, 10>(modulus, op)
        }
    };
    Some(out)
}

/// [`run`] with V vectors of limbs.
#[target_feature(enable = "avx512f,avx512vl,avx512ifma")]
fn run_v<const N: usize, const V: usize>(modulus: &Modulus<N>, op: Op<'_, N>) -> [u64; N] {
    debug_assert!(LIMB_BITS * 4 * V >= 64 * N + 4);
    let ifma = Ifma::<V>::new(&modulus.m);
    match op {
        Op::PowOfTwo(exp) => ifma.leave(modulus, &ifma.pow_of_two(modulus, exp)),
        Op::Pow(base, exp) => ifma.leave(modulus, &ifma.pow(modulus, base, exp)),
        #[cfg(test)]
        Op::Mul(a, b) => {
            let product = ifma.mul(&ifma.enter(modulus, a), &ifma.enter(modulus, b));
            ifma.leave(modulus, &product)
        }
        #[cfg(test)]
        Op::Normalize(lanes) => {
            let mut sum = [[0u64; 4]; V];
            for (k, lane) in lanes.iter().enumerate() {
                sum[k / 4][k % 4] = *lane;
            }
            to_words(&limbs_of(&normalize(&vectors(&sum)))).0
        }
    }
}

/// The modulus in 52-bit limbs with its constants.
struct Ifma<const V: usize> {
    m: Vectors<V>,
    /// m's two lowest limbs.
    m0: u64,
    m1: u64,
    /// `-m⁻¹ mod 2^52`.
    k0: u64,
}

impl<const V: usize> Ifma<V> {
    #[target_feature(enable = "avx512f,avx512vl,avx512ifma")]
    fn new<const N: usize>(m: &[u64; N]) -> Self {
        let m = from_words::<N, V>(m);
        Ifma {
            m: vectors(&m),
            m0: m[0][0],
            m1: m[0][1],
            k0: super::neg_inverse_mod_word(m[0][0]) & LIMB_MASK,
        }
    }

    /// `2^exp·R'` (below 2m): the same left-to-right square-and-double over every bit of exp as
    /// the portable path, the doubling kept or dropped by masking.
    #[target_feature(enable = "avx512f,avx512vl,avx512ifma")]
    fn pow_of_two<const N: usize>(&self, modulus: &Modulus<N>, exp: &[u64; N]) -> Vectors<V> {
        let mut acc = self.enter(modulus, modulus.one());
        for bit in (0..64 * N).rev() {
            acc = self.mul(&acc, &acc);
            let keep = ((exp[bit / 64] >> (bit % 64)) & 1).wrapping_neg();
            acc = select(_mm256_set1_epi64x(keep as i64), &double(&acc), &acc);
        }
        acc
    }

    /// `base^exp·R'` (below 2m) for `base·R` in [`Modulus`]'s form: the portable path's fixed
    /// window, every exponent bit processed and every table entry read.
    #[target_feature(enable = "avx512f,avx512vl,avx512ifma")]
    fn pow<const N: usize>(
        &self,
        modulus: &Modulus<N>,
        base: &[u64; N],
        exp: &[u64; N],
    ) -> Vectors<V> {
        let base = self.enter(modulus, base);
        let mut table = [self.enter(modulus, modulus.one()); TABLE];
        table[1] = base;
        for i in 2..TABLE {
            table[i] = if i.is_multiple_of(2) {
                self.mul(&table[i / 2], &table[i / 2])
            } else {
                self.mul(&table[i - 1], &base)
            };
        }
        let mut chunks = limbs::chunks_from_top(exp, WINDOW);
        let mut acc = select_entry(&table, chunks.next().unwrap_or(0));
        for chunk in chunks {
            for _ in 0..WINDOW {
                acc = self.mul(&acc, &acc);
            }
            acc = self.mul(&acc, &select_entry(&table, chunk));
        }
        acc
    }

    /// `x·R'` (below m) for `x·R` (below m) in [`Modulus`]'s form: doublings modulo m.
    #[target_feature(enable = "avx512f,avx512vl,avx512ifma")]
    fn enter<const N: usize>(&self, modulus: &Modulus<N>, x: &[u64; N]) -> Vectors<V> {
        let mut x = *x;
        for _ in 0..LIMB_BITS * 4 * V - 64 * N {
            x = modulus.double(&x);
        }
        vectors(&from_words(&x))
    }

    /// `x·R mod m` for `x·R'` below 4m: a multiplication by `R mod m`, then the one subtraction
    /// its result (below m + m/4) may need.
    #[target_feature(enable = "avx512f,avx512vl,avx512ifma")]
    fn leave<const N: usize>(&self, modulus: &Modulus<N>, x: &Vectors<V>) -> [u64; N] {
        let product = self.mul(x, &vectors(&from_words(modulus.one())));
        let (words, carry) = to_words::<N, V>(&limbs_of(&product));
        modulus.subtract_if_not_below(&words, carry)
    }

    /// `a·b·R'⁻¹ mod m`, below 2m, for `a, b` below 4m with normalized limbs; normalized.
    ///
    /// The lowest limb of the running sum is kept in a scalar (`low`), and the next one is
    /// formed there too from the vector's lane read before this step's products: y then waits
    /// on a few scalar multiplications per step, not on the vector's. The vector's two lowest
    /// lanes go stale in turn and are dropped.
    #[target_feature(enable = "avx512f,avx512vl,avx512ifma")]
    fn mul(&self, a: &Vectors<V>, b: &Vectors<V>) -> Vectors<V> {
        let [a0, a1, _, _] = lanes(a[0]);
        let mut acc = [_mm256_setzero_si256(); V];
        let mut low = 0u64;
        for b_vector in b {
            for bi in lanes(*b_vector) {
                let bi_vector = _mm256_set1_epi64x(bi as i64);
                let next = _mm256_extract_epi64::<1>(acc[0]) as u64;
                // The lowest limb with a0·bi whole: y from its low bits, and the sum with y·m0
                // (low 52 bits now zero) shifted down is the carry and both high halves, which
                // join the next limb with the low halves of a1·bi and y·m1.
                let t = u128::from(low) + u128::from(a0) * u128::from(bi);
                let y = (t as u64).wrapping_mul(self.k0) & LIMB_MASK;
                let carry = ((t + u128::from(self.m0) * u128::from(y)) >> LIMB_BITS) as u64;
                low = carry
                    + next
                    + (a1.wrapping_mul(bi) & LIMB_MASK)
                    + (self.m1.wrapping_mul(y) & LIMB_MASK);
                let y_vector = _mm256_set1_epi64x(y as i64);
                let mut high = [_mm256_setzero_si256(); V];
                for j in 0..V {
                    acc[j] = _mm256_madd52lo_epu64(acc[j], a[j], bi_vector);
                    high[j] = _mm256_madd52hi_epu64(_mm256_setzero_si256(), a[j], bi_vector);
                }
                for j in 0..V {
                    acc[j] = _mm256_madd52lo_epu64(acc[j], self.m[j], y_vector);
                    high[j] = _mm256_madd52hi_epu64(high[j], self.m[j], y_vector);
                }
                // Down one limb; the high halves land at the moved positions.
                for j in 0..V - 1 {
                    acc[j] = _mm256_alignr_epi64::<1>(acc[j + 1], acc[j]);
                }
                acc[V - 1] = _mm256_alignr_epi64::<1>(_mm256_setzero_si256(), acc[V - 1]);
                for j in 0..V {
                    acc[j] = _mm256_add_epi64(acc[j], high[j]);
                }
            }
        }
        acc[0] = _mm256_mask_set1_epi64(acc[0], 1, low as i64);
        normalize(&acc)
    }
}

/// The four lanes of a vector.
#[target_feature(enable = "avx512f,avx512vl,avx512ifma")]
fn lanes(v: __m256i) -> [u64; 4] {
    [
        _mm256_extract_epi64::<0>(v) as u64,
        _mm256_extract_epi64::<1>(v) as u64,
        _mm256_extract_epi64::<2>(v) as u64,
        _mm256_extract_epi64::<3>(v) as u64,
    ]
}

/// The vectors of `x`'s limbs.
#[target_feature(enable = "avx512f,avx512vl,avx512ifma")]
fn vectors<const V: usize>(x: &Limbs<V>) -> Vectors<V> {
    let mut out = [_mm256_setzero_si256(); V];
    for (v, l) in out.iter_mut().zip(x) {
        *v = _mm256_set_epi64x(l[3] as i64, l[2] as i64, l[1] as i64, l[0] as i64);
    }
    out
}

/// The limbs in `x`'s vectors.
#[target_feature(enable = "avx512f,avx512vl,avx512ifma")]
fn limbs_of<const V: usize>(x: &Vectors<V>) -> Limbs<V> {
    let mut out = [[0u64; 4]; V];
    for (l, v) in out.iter_mut().zip(x) {
        *l = lanes(*v);
    }
    out
}

/// Each limb's lanes moved up one limb (the lowest gets zero).
#[target_feature(enable = "avx512f,avx512vl,avx512ifma")]
fn up_one_limb<const V: usize>(x: &Vectors<V>) -> Vectors<V> {
    let mut out = [_mm256_setzero_si256(); V];
    out[0] = _mm256_alignr_epi64::<3>(x[0], _mm256_setzero_si256());
    for j in 1..V {
        out[j] = _mm256_alignr_epi64::<3>(x[j], x[j - 1]);
    }
    out
}

/// A sum held in lanes of up to 63 bits each with carries propagated, so that every limb has
/// 52 bits (the sum must fit in 208·V bits). The lanes' carries move up one limb at once; what
/// then overflows is at most one per limb, and it ripples through limbs of all ones: those
/// carries come out of one addition of bit masks (generated carries shifted up, plus the
/// all-ones limbs), with no branch on the value.
#[target_feature(enable = "avx512f,avx512vl,avx512ifma")]
fn normalize<const V: usize>(x: &Vectors<V>) -> Vectors<V> {
    let mask = _mm256_set1_epi64x(LIMB_MASK as i64);
    let mut carries = [_mm256_setzero_si256(); V];
    let mut out = [_mm256_setzero_si256(); V];
    for j in 0..V {
        carries[j] = _mm256_srli_epi64::<52>(x[j]);
        out[j] = _mm256_and_si256(x[j], mask);
    }
    let carries = up_one_limb(&carries);
    let (mut generate, mut propagate) = (0u64, 0u64);
    for j in 0..V {
        out[j] = _mm256_add_epi64(out[j], carries[j]);
        generate |= u64::from(_mm256_cmpgt_epu64_mask(out[j], mask)) << (4 * j);
        propagate |= u64::from(_mm256_cmpeq_epu64_mask(out[j], mask)) << (4 * j);
    }
    let carry_in = (generate << 1).wrapping_add(propagate) ^ propagate;
    let one = _mm256_set1_epi64x(1);
    for (j, limbs) in out.iter_mut().enumerate() {
        let k = ((carry_in >> (4 * j)) & 0xf) as u8;
        *limbs = _mm256_and_si256(_mm256_mask_add_epi64(*limbs, k, *limbs, one), mask);
    }
    out
}

/// `2·x` with normalized limbs (x below 2^(208·V − 1)).
#[target_feature(enable = "avx512f,avx512vl,avx512ifma")]
fn double<const V: usize>(x: &Vectors<V>) -> Vectors<V> {
    let mask = _mm256_set1_epi64x(LIMB_MASK as i64);
    let below = up_one_limb(x);
    let mut out = [_mm256_setzero_si256(); V];
    for j in 0..V {
        let shifted = _mm256_and_si256(_mm256_slli_epi64::<1>(x[j]), mask);
        out[j] = _mm256_or_si256(shifted, _mm256_srli_epi64::<51>(below[j]));
    }
    out
}

/// `table[index]`, reading every entry and keeping the one whose position matches by masking.
#[target_feature(enable = "avx512f,avx512vl,avx512ifma")]
fn select_entry<const V: usize>(table: &[Vectors<V>; TABLE], index: u64) -> Vectors<V> {
    let mut out = [_mm256_setzero_si256(); V];
    for (i, entry) in table.iter().enumerate() {
        let mask = _mm256_set1_epi64x(limbs::eq_mask(i as u64, index) as i64);
        for (o, e) in out.iter_mut().zip(entry) {
            *o = _mm256_or_si256(*o, _mm256_and_si256(*e, mask));
        }
    }
    out
}

/// `mask ? a : b` lane by lane, `mask` being all ones or zero in every lane.
#[target_feature(enable = "avx512f,avx512vl,avx512ifma")]
fn select<const V: usize>(mask: __m256i, a: &Vectors<V>, b: &Vectors<V>) -> Vectors<V> {
    let mut out = [_mm256_setzero_si256(); V];
    for j in 0..V {
        out[j] = _mm256_or_si256(
            _mm256_and_si256(a[j], mask),
            _mm256_andnot_si256(mask, b[j]),
        );
    }
    out
}

/// 64-bit words to 52-bit limbs.
fn from_words<const N: usize, const V: usize>(x: &[u64; N]) -> Limbs<V> {
    let mut out = [[0u64; 4]; V];
    for (k, limb) in out.iter_mut().flatten().enumerate() {
        *limb = limbs::bits_at(x, LIMB_BITS * k, LIMB_BITS);
    }
    out
}

/// Normalized 52-bit limbs of a value below 2^(64·N + 1) to 64-bit words and the bit above them.
fn to_words<const N: usize, const V: usize>(x: &Limbs<V>) -> ([u64; N], u64) {
    let mut out = [0u64; N];
    let mut top = 0u64;
    for (k, &limb) in x.iter().flatten().enumerate() {
        let pos = LIMB_BITS * k;
        let (word, bit) = (pos / 64, pos % 64);
        for (w, part) in [
            (word, limb << bit),
            (word + 1, limb.checked_shr((64 - bit) as u32).unwrap_or(0)),
        ] {
            match w {
                w if w < N => out[w] |= part,
                w if w == N => top |= part,
                _ => {}
            }
        }
    }
    (out, top)
}
