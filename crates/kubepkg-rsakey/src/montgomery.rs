//! Montgomery arithmetic modulo an odd N-limb number, and a fixed-window exponentiation whose
//! branches and memory accesses do not depend on the exponent.
//!
//! Values are kept in Montgomery form `x·R mod m` with `R = 2^(64·N)`. Multiplication and
//! squaring scan the product column by column with the reduction interleaved (finely integrated
//! product scanning), the running column sum in registers; squaring computes each cross product
//! once and doubles it, which saves about a quarter of the limb products. Both end with one
//! conditional subtraction done by masking.

use crate::limbs;

#[cfg(target_arch = "x86_64")]
mod ifma;

/// The exponentiation window in bits: a table of 2^5 powers, one table multiplication per five
/// squarings.
const WINDOW: usize = 5;
const TABLE: usize = 1 << WINDOW;

/// An odd modulus `m > 1` of at most N limbs with its Montgomery constants.
pub(crate) struct Modulus<const N: usize> {
    m: [u64; N],
    /// `-m⁻¹ mod 2^64`.
    m_inv: u64,
    /// `R mod m`: one in Montgomery form.
    one: [u64; N],
    /// `R² mod m`: converts into Montgomery form.
    r2: [u64; N],
}

impl<const N: usize> Modulus<N> {
    /// The constants for `m`, or `None` when `m` is even or 1.
    pub(crate) fn new(m: [u64; N]) -> Option<Self> {
        const { assert!(N > 0) };
        if m[0] & 1 == 0 || limbs::bit_len(&m) < 2 {
            return None;
        }
        let mut modulus = Modulus {
            m,
            m_inv: neg_inverse_mod_word(m[0]),
            one: [0; N],
            r2: [0; N],
        };
        modulus.one = modulus.power_of_two_mod(64 * N);
        modulus.r2 = modulus.r_squared();
        Some(modulus)
    }

    /// `2^k mod m` for `k ≥ bit_len(m) − 1`, by doubling from the largest power of two below m.
    fn power_of_two_mod(&self, k: usize) -> [u64; N] {
        let top = limbs::bit_len(&self.m) - 1;
        let mut x = [0u64; N];
        x[top / 64] = 1 << (top % 64);
        for _ in top..k {
            x = self.double(&x);
        }
        x
    }

    /// `R² mod m` from `R mod m`: `s` Montgomery squarings turn `2^t·R` into `2^(t·2^s)·R`, and
    /// `t·2^s = 64·N` makes that `R²`.
    fn r_squared(&self) -> [u64; N] {
        let s = (64 * N).trailing_zeros();
        let t = (64 * N) >> s;
        let mut x = self.one;
        for _ in 0..t {
            x = self.double(&x);
        }
        for _ in 0..s {
            x = self.sqr(&x);
        }
        x
    }

    /// One in Montgomery form.
    pub(crate) fn one(&self) -> &[u64; N] {
        &self.one
    }

    /// `m − 1` in Montgomery form.
    pub(crate) fn minus_one(&self) -> [u64; N] {
        limbs::sub(&self.m, &self.one).0
    }

    /// `x` (below m) into Montgomery form.
    pub(crate) fn montgomery_form(&self, x: &[u64; N]) -> [u64; N] {
        self.mul(x, &self.r2)
    }

    /// `x` out of Montgomery form.
    #[cfg(test)]
    pub(crate) fn plain_form(&self, x: &[u64; N]) -> [u64; N] {
        let mut unit = [0u64; N];
        unit[0] = 1;
        self.mul(x, &unit)
    }

    /// `2·x mod m` for `x < m`.
    fn double(&self, x: &[u64; N]) -> [u64; N] {
        let mut out = [0u64; N];
        let mut carry = 0u64;
        for i in 0..N {
            out[i] = (x[i] << 1) | carry;
            carry = x[i] >> 63;
        }
        self.subtract_if_not_below(&out, carry)
    }

    /// `t − m` when `carry·R + t ≥ m`, else `t`, chosen by masking; `carry·R + t < 2m`.
    fn subtract_if_not_below(&self, t: &[u64; N], carry: u64) -> [u64; N] {
        let (diff, borrow) = limbs::sub(t, &self.m);
        // Keep the difference unless it borrowed with nothing above t to borrow from.
        let keep_diff = carry | (borrow ^ 1);
        let mask = std::hint::black_box(keep_diff.wrapping_neg());
        limbs::select(mask, &diff, t)
    }

    /// `a·b·R⁻¹ mod m` for `a, b < m`.
    pub(crate) fn mul(&self, a: &[u64; N], b: &[u64; N]) -> [u64; N] {
        self.reduce_columns(|acc, k| {
            for i in k.saturating_sub(N - 1)..=k.min(N - 1) {
                acc.add_product(a[i], b[k - i]);
            }
        })
    }

    /// `a²·R⁻¹ mod m` for `a < m`: each cross product `a[i]·a[j]` (i < j) once, doubled.
    pub(crate) fn sqr(&self, a: &[u64; N]) -> [u64; N] {
        self.reduce_columns(|acc, k| {
            let mut cross = Accumulator::default();
            let mut i = k.saturating_sub(N - 1);
            while i < k - i {
                cross.add_product(a[i], a[k - i]);
                i += 1;
            }
            acc.add_doubled(&cross);
            if k.is_multiple_of(2) {
                acc.add_product(a[k / 2], a[k / 2]);
            }
        })
    }

    /// Montgomery reduction interleaved with a product computed column by column (product
    /// scanning): `column(acc, k)` adds the product's terms of weight 2^(64·k); the reduction
    /// adds `u·m` column by column, choosing each limb of u to clear the column's low limb. The
    /// running sum stays in a three-limb accumulator, so no intermediate product is stored.
    #[inline(always)]
    fn reduce_columns(&self, column: impl Fn(&mut Accumulator, usize)) -> [u64; N] {
        let m = &self.m;
        let mut u = [0u64; N];
        let mut r = [0u64; N];
        let mut acc = Accumulator::default();
        for k in 0..N {
            column(&mut acc, k);
            for i in 0..k {
                acc.add_product(u[i], m[k - i]);
            }
            u[k] = acc.low().wrapping_mul(self.m_inv);
            acc.add_product(u[k], m[0]);
            acc.shift();
        }
        for k in N..2 * N - 1 {
            column(&mut acc, k);
            for i in k + 1 - N..N {
                acc.add_product(u[i], m[k - i]);
            }
            r[k - N] = acc.shift();
        }
        r[N - 1] = acc.shift();
        let top = acc.shift();
        self.subtract_if_not_below(&r, top)
    }

    /// `base^exp` in Montgomery form for `base` in Montgomery form. Every bit of `exp` is
    /// processed (leading zeros too), the table entry is selected by reading all entries under a
    /// mask, and the operations are the same for every exponent of N limbs.
    ///
    /// On x86-64 processors with AVX-512 IFMA the 1024- and 2048-bit moduli take the vector
    /// path ([`ifma`]), the same computation in 52-bit limbs.
    pub(crate) fn pow(&self, base: &[u64; N], exp: &[u64; N]) -> [u64; N] {
        #[cfg(target_arch = "x86_64")]
        if let Some(power) = ifma::run(self, ifma::Op::Pow(base, exp)) {
            return power;
        }
        self.pow_portable(base, exp)
    }

    /// [`Self::pow`] on 64-bit limbs, on every processor.
    fn pow_portable(&self, base: &[u64; N], exp: &[u64; N]) -> [u64; N] {
        let table = self.power_table(base);
        let bits = 64 * N;
        let first = match bits % WINDOW {
            0 => WINDOW,
            r => r,
        };
        let mut pos = bits - first;
        let mut acc = select_entry(&table, limbs::bits_at(exp, pos, first));
        while pos > 0 {
            pos -= WINDOW;
            for _ in 0..WINDOW {
                acc = self.sqr(&acc);
            }
            acc = self.mul(
                &acc,
                &select_entry(&table, limbs::bits_at(exp, pos, WINDOW)),
            );
        }
        acc
    }

    /// `2^exp` in Montgomery form, cheaper than [`Self::pow`]: left to right over every bit of
    /// `exp`, a squaring, then a doubling kept or dropped by masking (a doubling costs a few
    /// additions where a window's table multiplication costs a full product).
    ///
    /// On x86-64 processors with AVX-512 IFMA the 1024- and 2048-bit moduli take the vector
    /// path ([`ifma`]), the same computation in 52-bit limbs.
    pub(crate) fn pow_of_two(&self, exp: &[u64; N]) -> [u64; N] {
        #[cfg(target_arch = "x86_64")]
        if let Some(power) = ifma::run(self, ifma::Op::PowOfTwo(exp)) {
            return power;
        }
        self.pow_of_two_portable(exp)
    }

    /// [`Self::pow_of_two`] on 64-bit limbs, on every processor.
    fn pow_of_two_portable(&self, exp: &[u64; N]) -> [u64; N] {
        let mut acc = self.one;
        for bit in (0..64 * N).rev() {
            acc = self.sqr(&acc);
            let doubled = self.double(&acc);
            let mask = ((exp[bit / 64] >> (bit % 64)) & 1).wrapping_neg();
            acc = limbs::select(mask, &doubled, &acc);
        }
        acc
    }

    /// `base^0 … base^(TABLE−1)` in Montgomery form.
    fn power_table(&self, base: &[u64; N]) -> [[u64; N]; TABLE] {
        let mut table = [[0u64; N]; TABLE];
        table[0] = self.one;
        table[1] = *base;
        for i in 2..TABLE {
            table[i] = if i.is_multiple_of(2) {
                self.sqr(&table[i / 2])
            } else {
                self.mul(&table[i - 1], base)
            };
        }
        table
    }
}

/// A column sum of limb products: 192 bits, ample for the at most 2·N + 2 products below 2^128
/// a column receives.
#[derive(Default)]
struct Accumulator {
    low: u128,
    high: u64,
}

impl Accumulator {
    #[inline(always)]
    fn add_product(&mut self, a: u64, b: u64) {
        let (sum, carry) = self.low.overflowing_add(u128::from(a) * u128::from(b));
        self.low = sum;
        self.high += u64::from(carry);
    }

    /// Adds twice `other`.
    #[inline(always)]
    fn add_doubled(&mut self, other: &Accumulator) {
        let (sum, carry) = self.low.overflowing_add(other.low << 1);
        self.low = sum;
        self.high += ((other.high << 1) | (other.low >> 127) as u64) + u64::from(carry);
    }

    #[inline(always)]
    fn low(&self) -> u64 {
        self.low as u64
    }

    /// Removes and returns the low limb, shifting the rest down.
    #[inline(always)]
    fn shift(&mut self) -> u64 {
        let out = self.low as u64;
        self.low = (self.low >> 64) | (u128::from(self.high) << 64);
        self.high = 0;
        out
    }
}

/// `-x⁻¹ mod 2^64` for odd x by Newton's iteration (each step doubles the correct low bits;
/// x is its own inverse modulo 8).
fn neg_inverse_mod_word(x: u64) -> u64 {
    let mut inv = x;
    for _ in 0..5 {
        inv = inv.wrapping_mul(2u64.wrapping_sub(x.wrapping_mul(inv)));
    }
    inv.wrapping_neg()
}

/// `table[index]`, reading every entry and keeping the one whose position matches by masking.
fn select_entry<const N: usize>(table: &[[u64; N]; TABLE], index: u64) -> [u64; N] {
    let mut out = [0u64; N];
    for (i, entry) in table.iter().enumerate() {
        let mask = limbs::eq_mask(i as u64, index);
        for j in 0..N {
            out[j] |= entry[j] & mask;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng, rngs::StdRng};
    use rsa::BigUint;

    use super::*;

    fn big<const N: usize>(x: &[u64; N]) -> BigUint {
        BigUint::from_bytes_be(&limbs::to_be_bytes(x))
    }

    fn limbs_of<const N: usize>(x: &BigUint) -> [u64; N] {
        limbs::from_be_bytes(&x.to_bytes_be()).unwrap()
    }

    /// A random odd modulus of N limbs: full width, or `bits` bits when given.
    fn random_modulus<const N: usize>(rng: &mut StdRng, bits: usize) -> [u64; N] {
        let mut m = [0u64; N];
        rng.fill(&mut m[..]);
        let mut m = limbs::shr(&m, 64 * N - bits);
        m[(bits - 1) / 64] |= 1 << ((bits - 1) % 64);
        m[0] |= 1;
        m
    }

    fn random_below<const N: usize>(rng: &mut StdRng, m: &[u64; N]) -> [u64; N] {
        let mut x = [0u64; N];
        rng.fill(&mut x[..]);
        limbs_of(&(big(&x) % big(m)))
    }

    /// Montgomery multiplication, squaring and exponentiation against num-bigint-dig's `*`, `%`
    /// and `modpow` on random moduli of the width (full and shorter), with the edge values 0, 1,
    /// m − 1 and the exponents 0, 1 and all ones among the random ones.
    fn matches_bigint<const N: usize>(cases: usize, seed: u64) {
        let mut rng = StdRng::seed_from_u64(seed);
        for case in 0..cases {
            let bits = match case % 3 {
                0 => 64 * N,
                1 => 64 * N - 1 - rng.gen_range(0..63),
                _ => rng.gen_range(2..=64 * N),
            };
            let m = random_modulus::<N>(&mut rng, bits);
            let modulus = Modulus::<N>::new(m).unwrap();
            let mb = big(&m);
            let mut values = vec![random_below(&mut rng, &m), random_below(&mut rng, &m)];
            if case < 3 {
                values.extend([
                    [0; N],
                    limbs::add_small(&[0; N], 1).0,
                    limbs::sub(&m, &limbs::add_small(&[0; N], 1).0).0,
                ]);
            }
            for a in &values {
                let am = modulus.montgomery_form(a);
                assert_eq!(big(&modulus.plain_form(&am)), big(a));
                let sq = modulus.plain_form(&modulus.sqr(&am));
                assert_eq!(big(&sq), big(a) * big(a) % &mb, "square mod {mb:x}");
                for b in &values {
                    let bm = modulus.montgomery_form(b);
                    let product = modulus.plain_form(&modulus.mul(&am, &bm));
                    assert_eq!(big(&product), big(a) * big(b) % &mb, "product mod {mb:x}");
                }
                let mut exponents = vec![[0u64; N]];
                exponents.push(random_below(&mut rng, &[u64::MAX; N]));
                if case < 2 {
                    exponents.extend([[u64::MAX; N], limbs::add_small(&[0; N], 1).0]);
                }
                for e in &exponents {
                    let power = modulus.plain_form(&modulus.pow(&am, e));
                    assert_eq!(
                        big(&power),
                        big(a).modpow(&big(e), &mb),
                        "{a:x?}^{e:x?} mod {mb:x}"
                    );
                }
            }
        }
    }

    #[test]
    fn arithmetic_matches_bigint_at_every_width() {
        matches_bigint::<1>(300, 1);
        matches_bigint::<2>(300, 2);
        matches_bigint::<16>(60, 16); // 1024-bit primes (2048-bit keys)
        matches_bigint::<24>(30, 24); // 1536-bit primes (3072-bit keys)
        matches_bigint::<32>(20, 32); // 2048-bit primes (4096-bit keys)
        matches_bigint::<64>(6, 64); // 4096-bit primes (8192-bit keys)
    }

    /// The portable `2^exp` and `base^exp` against num-bigint-dig's `modpow`, and the IFMA path's
    /// multiplication, `2^exp` and `base^exp` against the portable path (the product against
    /// num-bigint-dig too), on random moduli of the width (full, top bits set, and shorter) with
    /// the operands 0, 1 and m − 1 among random ones and the exponents 0, 1 and all ones. Whether
    /// the IFMA path ran is returned.
    fn both_paths_match<const N: usize>(cases: usize, seed: u64) -> bool {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut ifma_ran = false;
        for case in 0..cases {
            let bits = match case % 4 {
                0 => 64 * N,
                1 => 64 * N - 1 - rng.gen_range(0..63),
                _ => rng.gen_range(2..=64 * N),
            };
            let mut m = random_modulus::<N>(&mut rng, bits);
            if case % 4 == 3 {
                m[N - 1] |= 0b11 << 62; // a prime candidate's top bits
            }
            let modulus = Modulus::<N>::new(m).unwrap();
            let mb = big(&m);
            let one = limbs::add_small(&[0; N], 1).0;
            let mut exponents = vec![random_below(&mut rng, &[u64::MAX; N])];
            exponents.push(limbs::shr(&exponents[0], rng.gen_range(1..64 * N)));
            if case < 2 {
                exponents.extend([[0; N], one, [u64::MAX; N]]);
            }
            for e in &exponents {
                let portable = modulus.pow_of_two_portable(e);
                let expected = BigUint::from(2u32).modpow(&big(e), &mb);
                assert_eq!(
                    big(&modulus.plain_form(&portable)),
                    expected,
                    "2^{e:x?} mod {mb:x}"
                );
                #[cfg(target_arch = "x86_64")]
                if let Some(vector) = ifma::run(&modulus, ifma::Op::PowOfTwo(e)) {
                    assert_eq!(vector, portable, "IFMA 2^{e:x?} mod {mb:x}");
                    ifma_ran = true;
                }
            }
            let mut values = vec![random_below(&mut rng, &m), random_below(&mut rng, &m)];
            values.extend([[0; N], one, limbs::sub(&m, &one).0]);
            for a in &values {
                let am = modulus.montgomery_form(a);
                for e in &exponents {
                    let portable = modulus.pow_portable(&am, e);
                    let expected = big(a).modpow(&big(e), &mb);
                    assert_eq!(
                        big(&modulus.plain_form(&portable)),
                        expected,
                        "{a:x?}^{e:x?}"
                    );
                    #[cfg(target_arch = "x86_64")]
                    if let Some(vector) = ifma::run(&modulus, ifma::Op::Pow(&am, e)) {
                        assert_eq!(vector, portable, "IFMA {a:x?}^{e:x?} mod {mb:x}");
                    }
                }
                #[cfg(target_arch = "x86_64")]
                for b in &values {
                    if let Some(vector) = ifma::run(&modulus, ifma::Op::Mul(a, b)) {
                        // vector = a·b·R⁻¹ mod m: vector·R ≡ a·b.
                        let r = BigUint::from(1u32) << (64 * N);
                        assert_eq!(big(&vector) * r % &mb, big(a) * big(b) % &mb);
                        assert_eq!(vector, modulus.mul(a, b), "IFMA {a:x?}·{b:x?} mod {mb:x}");
                    }
                }
            }
        }
        ifma_ran
    }

    /// The IFMA path's carry propagation against num-bigint-dig's sum of the lanes, on lanes
    /// whose carries ripple (limbs of all ones above one that overflows), random lanes and lanes
    /// near the limits.
    #[cfg(target_arch = "x86_64")]
    fn normalization_matches<const N: usize>(rng: &mut StdRng) -> bool {
        const LIMB: u64 = (1 << 52) - 1;
        let mut cases = vec![[LIMB; N], [0; N], [(1 << 60) - 1; N]];
        let mut ripple = [LIMB; N];
        ripple[0] = LIMB + 1;
        cases.push(ripple);
        ripple[N / 2] = LIMB - 1; // the ripple stops halfway
        cases.push(ripple);
        let mut gap = [LIMB; N];
        gap[3] = 1 << 53; // carries into limbs of all ones from the middle
        cases.push(gap);
        for _ in 0..40 {
            let mut lanes = [0u64; N];
            for lane in lanes.iter_mut() {
                *lane = match rng.gen_range(0..4) {
                    0 => LIMB,
                    1 => LIMB + 1,
                    2 => rng.gen_range(0..1 << 60),
                    _ => rng.gen_range(0..=LIMB),
                };
            }
            cases.push(lanes);
        }
        let modulus = Modulus::<N>::new(random_modulus(rng, 64 * N)).unwrap();
        let mut ran = false;
        for lanes in &cases {
            let expected = lanes.iter().rev().fold(BigUint::from(0u32), |sum, &lane| {
                (sum << 52usize) + BigUint::from(lane)
            });
            if let Some(words) = ifma::run(&modulus, ifma::Op::Normalize(lanes)) {
                assert_eq!(big(&words), expected, "lanes {lanes:x?}");
                ran = true;
            }
        }
        ran
    }

    #[test]
    fn ifma_and_portable_paths_match() {
        let ran = [
            both_paths_match::<16>(80, 116), // 1024-bit primes (2048-bit keys)
            both_paths_match::<32>(24, 132), // 2048-bit primes (4096-bit keys)
        ];
        assert_eq!(ran[0], ran[1]);
        #[cfg(target_arch = "x86_64")]
        {
            let mut rng = StdRng::seed_from_u64(52);
            assert_eq!(normalization_matches::<16>(&mut rng), ran[0]);
            assert_eq!(normalization_matches::<32>(&mut rng), ran[0]);
            assert_eq!(
                ran[0],
                ifma::available(),
                "the IFMA path runs where the CPU has it"
            );
        }
        eprintln!(
            "{}",
            if ran[0] {
                "the AVX-512 IFMA path ran and matched the portable one"
            } else {
                "no AVX-512 IFMA on this processor: only the portable path ran"
            }
        );
    }

    #[test]
    fn even_moduli_and_one_are_refused() {
        assert!(Modulus::<2>::new([4, 1]).is_none());
        assert!(Modulus::<2>::new([1, 0]).is_none());
        assert!(Modulus::<2>::new([0, 0]).is_none());
        assert!(Modulus::<2>::new([3, 0]).is_some());
    }
}
