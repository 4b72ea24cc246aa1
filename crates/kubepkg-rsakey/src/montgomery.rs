//! Montgomery arithmetic modulo an odd N-limb number, and a fixed-window exponentiation whose
//! branches and memory accesses do not depend on the exponent.
//!
//! Values are kept in Montgomery form `x·R mod m` with `R = 2^(64·N)`. Multiplication is the
//! coarsely integrated operand scanning method (product and reduction interleaved limb by limb);
//! squaring computes the double-width square with each cross product once, then reduces it, which
//! saves about a quarter of the limb products. Both end with one conditional subtraction done by
//! masking.

use crate::limbs;

/// The exponentiation window in bits: a table of 2^5 powers, one table multiplication per five
/// squarings.
const WINDOW: usize = 5;
const TABLE: usize = 1 << WINDOW;

/// An odd modulus `m > 1` of at most N limbs with its Montgomery constants. `W` is `2·N`, the
/// width of an unreduced product (a separate parameter because stable Rust cannot write `2 * N`
/// as an array length in generic code).
pub(crate) struct Modulus<const N: usize, const W: usize> {
    m: [u64; N],
    /// `-m⁻¹ mod 2^64`.
    m_inv: u64,
    /// `R mod m`: one in Montgomery form.
    one: [u64; N],
    /// `R² mod m`: converts into Montgomery form.
    r2: [u64; N],
}

impl<const N: usize, const W: usize> Modulus<N, W> {
    /// The constants for `m`, or `None` when `m` is even or 1.
    pub(crate) fn new(m: [u64; N]) -> Option<Self> {
        const { assert!(W == 2 * N && N > 0) };
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
    pub(crate) fn to_montgomery(&self, x: &[u64; N]) -> [u64; N] {
        self.mul(x, &self.r2)
    }

    /// `x` out of Montgomery form.
    #[cfg(test)]
    pub(crate) fn from_montgomery(&self, x: &[u64; N]) -> [u64; N] {
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
        let m = &self.m;
        let mut t = [0u64; N];
        let mut top = 0u64;
        for &bi in b {
            // t += a·bi
            let mut carry = 0u64;
            for j in 0..N {
                (t[j], carry) = mul_add(a[j], bi, t[j], carry);
            }
            let (sum, over) = top.overflowing_add(carry);
            // t += u·m, which clears the low limb; shift down one limb.
            let u = t[0].wrapping_mul(self.m_inv);
            let (_, mut carry) = mul_add(u, m[0], t[0], 0);
            for j in 1..N {
                (t[j - 1], carry) = mul_add(u, m[j], t[j], carry);
            }
            let (sum, over2) = sum.overflowing_add(carry);
            t[N - 1] = sum;
            top = u64::from(over) + u64::from(over2);
        }
        self.subtract_if_not_below(&t, top)
    }

    /// `a²·R⁻¹ mod m` for `a < m`.
    pub(crate) fn sqr(&self, a: &[u64; N]) -> [u64; N] {
        self.reduce(&square_wide::<N, W>(a))
    }

    /// Montgomery reduction `t·R⁻¹ mod m` of a double-width `t < m·R`.
    fn reduce(&self, t: &[u64; W]) -> [u64; N] {
        let m = &self.m;
        let mut t = *t;
        let mut top = 0u64;
        for i in 0..N {
            let u = t[i].wrapping_mul(self.m_inv);
            let mut carry = 0u64;
            for j in 0..N {
                (t[i + j], carry) = mul_add(u, m[j], t[i + j], carry);
            }
            let sum = u128::from(t[i + N]) + u128::from(carry) + u128::from(top);
            t[i + N] = sum as u64;
            top = (sum >> 64) as u64;
        }
        let mut high = [0u64; N];
        high.copy_from_slice(&t[N..]);
        self.subtract_if_not_below(&high, top)
    }

    /// `base^exp` in Montgomery form for `base` in Montgomery form. Every bit of `exp` is
    /// processed (leading zeros too), the table entry is selected by reading all entries under a
    /// mask, and the operations are the same for every exponent of N limbs.
    pub(crate) fn pow(&self, base: &[u64; N], exp: &[u64; N]) -> [u64; N] {
        let table = self.power_table(base);
        let bits = 64 * N;
        let first = match bits % WINDOW {
            0 => WINDOW,
            r => r,
        };
        let mut pos = bits - first;
        let mut acc = select_entry(&table, window_bits(exp, pos, first));
        while pos > 0 {
            pos -= WINDOW;
            for _ in 0..WINDOW {
                acc = self.sqr(&acc);
            }
            acc = self.mul(&acc, &select_entry(&table, window_bits(exp, pos, WINDOW)));
        }
        acc
    }

    /// `base^0 … base^(TABLE−1)` in Montgomery form.
    fn power_table(&self, base: &[u64; N]) -> [[u64; N]; TABLE] {
        let mut table = [[0u64; N]; TABLE];
        table[0] = self.one;
        table[1] = *base;
        for i in 2..TABLE {
            table[i] = if i % 2 == 0 {
                self.sqr(&table[i / 2])
            } else {
                self.mul(&table[i - 1], base)
            };
        }
        table
    }
}

/// `a·b + c + d` as (low, high) limbs; it cannot overflow 128 bits.
#[inline(always)]
fn mul_add(a: u64, b: u64, c: u64, d: u64) -> (u64, u64) {
    let t = u128::from(a) * u128::from(b) + u128::from(c) + u128::from(d);
    (t as u64, (t >> 64) as u64)
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

/// The full 2·N-limb square of `a`: the cross products once, doubled, plus the diagonal.
fn square_wide<const N: usize, const W: usize>(a: &[u64; N]) -> [u64; W] {
    let mut t = [0u64; W];
    for i in 0..N {
        let mut carry = 0u64;
        for j in i + 1..N {
            (t[i + j], carry) = mul_add(a[i], a[j], t[i + j], carry);
        }
        t[i + N] = carry;
    }
    let mut shifted_out = 0u64;
    for limb in t.iter_mut() {
        let next = *limb >> 63;
        *limb = (*limb << 1) | shifted_out;
        shifted_out = next;
    }
    let mut carry = 0u64;
    for i in 0..N {
        let sq = u128::from(a[i]) * u128::from(a[i]);
        let lo = u128::from(t[2 * i]) + (sq & u128::from(u64::MAX)) + u128::from(carry);
        t[2 * i] = lo as u64;
        let hi = u128::from(t[2 * i + 1]) + (sq >> 64) + (lo >> 64);
        t[2 * i + 1] = hi as u64;
        carry = (hi >> 64) as u64;
    }
    t
}

/// The `len` bits of `exp` from bit `pos` up (the positions are public; the value is not).
fn window_bits<const N: usize>(exp: &[u64; N], pos: usize, len: usize) -> u64 {
    let (limb, bit) = (pos / 64, pos % 64);
    let mut v = exp[limb] >> bit;
    if bit + len > 64 && limb + 1 < N {
        v |= exp[limb + 1] << (64 - bit);
    }
    v & ((1 << len) - 1)
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
    fn matches_bigint<const N: usize, const W: usize>(cases: usize, seed: u64) {
        let mut rng = StdRng::seed_from_u64(seed);
        for case in 0..cases {
            let bits = match case % 3 {
                0 => 64 * N,
                1 => 64 * N - 1 - rng.gen_range(0..63),
                _ => rng.gen_range(2..=64 * N),
            };
            let m = random_modulus::<N>(&mut rng, bits);
            let modulus = Modulus::<N, W>::new(m).unwrap();
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
                let am = modulus.to_montgomery(a);
                assert_eq!(big(&modulus.from_montgomery(&am)), big(a));
                let sq = modulus.from_montgomery(&modulus.sqr(&am));
                assert_eq!(big(&sq), big(a) * big(a) % &mb, "square mod {mb:x}");
                for b in &values {
                    let bm = modulus.to_montgomery(b);
                    let product = modulus.from_montgomery(&modulus.mul(&am, &bm));
                    assert_eq!(big(&product), big(a) * big(b) % &mb, "product mod {mb:x}");
                }
                let mut exponents = vec![[0u64; N]];
                exponents.push(random_below(&mut rng, &[u64::MAX; N]));
                if case < 2 {
                    exponents.extend([[u64::MAX; N], limbs::add_small(&[0; N], 1).0]);
                }
                for e in &exponents {
                    let power = modulus.from_montgomery(&modulus.pow(&am, e));
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
    fn one_and_two_limbs_match_bigint() {
        matches_bigint::<1, 2>(300, 1);
        matches_bigint::<2, 4>(300, 2);
    }

    #[test]
    fn limbs_of_1024_bit_primes_match_bigint() {
        matches_bigint::<16, 32>(60, 16);
    }

    #[test]
    fn limbs_of_1536_bit_primes_match_bigint() {
        matches_bigint::<24, 48>(30, 24);
    }

    #[test]
    fn limbs_of_2048_bit_primes_match_bigint() {
        matches_bigint::<32, 64>(20, 32);
    }

    #[test]
    fn limbs_of_4096_bit_primes_match_bigint() {
        matches_bigint::<64, 128>(6, 64);
    }

    #[test]
    fn even_moduli_and_one_are_refused() {
        assert!(Modulus::<2, 4>::new([4, 1]).is_none());
        assert!(Modulus::<2, 4>::new([1, 0]).is_none());
        assert!(Modulus::<2, 4>::new([0, 0]).is_none());
        assert!(Modulus::<2, 4>::new([3, 0]).is_some());
    }

    #[test]
    fn window_bits_cross_limbs() {
        let x = [0xf000_0000_0000_0000u64, 0b1011];
        assert_eq!(window_bits(&x, 62, 5), 0b01111);
        assert_eq!(window_bits(&x, 65, 5), 0b101);
        assert_eq!(window_bits(&x, 125, 3), 0);
    }
}
