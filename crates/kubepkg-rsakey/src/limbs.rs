//! Fixed-width unsigned integers as little-endian `u64` limbs: the few operations the prime
//! search needs besides Montgomery arithmetic.

/// All ones when `a == b`, zero otherwise, without a branch on the values.
pub(crate) fn eq_mask(a: u64, b: u64) -> u64 {
    let x = a ^ b;
    // The top bit of `x | -x` is set exactly when x is not zero.
    ((x | x.wrapping_neg()) >> 63).wrapping_sub(1)
}

/// `a - b` and the borrow out (0 or 1).
pub(crate) fn sub<const N: usize>(a: &[u64; N], b: &[u64; N]) -> ([u64; N], u64) {
    let mut out = [0u64; N];
    let mut borrow = 0u64;
    for i in 0..N {
        let (d, b1) = a[i].overflowing_sub(b[i]);
        let (d, b2) = d.overflowing_sub(borrow);
        out[i] = d;
        borrow = u64::from(b1 | b2);
    }
    (out, borrow)
}

/// `mask ? a : b` limb by limb, `mask` being all ones or zero.
pub(crate) fn select<const N: usize>(mask: u64, a: &[u64; N], b: &[u64; N]) -> [u64; N] {
    let mut out = [0u64; N];
    for i in 0..N {
        out[i] = (a[i] & mask) | (b[i] & !mask);
    }
    out
}

/// `x + v` and whether it carried out of the top limb.
pub(crate) fn add_small<const N: usize>(x: &[u64; N], v: u64) -> ([u64; N], bool) {
    let mut out = *x;
    let mut carry = v;
    for limb in out.iter_mut() {
        let (s, c) = limb.overflowing_add(carry);
        *limb = s;
        carry = u64::from(c);
    }
    (out, carry != 0)
}

/// The number of significant bits (0 for zero).
pub(crate) fn bit_len<const N: usize>(x: &[u64; N]) -> usize {
    x.iter()
        .rposition(|&l| l != 0)
        .map_or(0, |i| 64 * i + 64 - x[i].leading_zeros() as usize)
}

/// The number of trailing zero bits (64·N for zero).
pub(crate) fn trailing_zeros<const N: usize>(x: &[u64; N]) -> usize {
    match x.iter().position(|&l| l != 0) {
        Some(i) => 64 * i + x[i].trailing_zeros() as usize,
        None => 64 * N,
    }
}

/// `x >> s` for any shift (zero from 64·N on).
pub(crate) fn shr<const N: usize>(x: &[u64; N], s: usize) -> [u64; N] {
    let (limbs, bits) = (s / 64, s % 64);
    let mut out = [0u64; N];
    for i in 0..N.saturating_sub(limbs) {
        let lo = x[i + limbs] >> bits;
        let hi = match (bits, x.get(i + limbs + 1)) {
            (0, _) | (_, None) => 0,
            (_, Some(next)) => next << (64 - bits),
        };
        out[i] = lo | hi;
    }
    out
}

/// The `len` bits of `x` from bit `pos` up (`len` below 64; bits past the top read as zero).
pub(crate) fn bits_at<const N: usize>(x: &[u64; N], pos: usize, len: usize) -> u64 {
    let (limb, bit) = (pos / 64, pos % 64);
    let mut v = x.get(limb).map_or(0, |l| l >> bit);
    if bit + len > 64 {
        v |= x.get(limb + 1).map_or(0, |l| l << (64 - bit));
    }
    v & ((1 << len) - 1)
}

/// `x` cut into `len`-bit chunks (`len` below 64) from the top down; the first chunk is the
/// shorter one when `len` does not divide 64·N.
pub(crate) fn chunks_from_top<const N: usize>(
    x: &[u64; N],
    len: usize,
) -> impl Iterator<Item = u64> + '_ {
    let bits = 64 * N;
    let first = match bits % len {
        0 => len,
        r => r,
    };
    let top = bits - first;
    std::iter::once(bits_at(x, top, first))
        .chain((0..top / len).rev().map(move |i| bits_at(x, i * len, len)))
}

/// Whether `a < b`, by value (not constant time: used on public or random values).
pub(crate) fn less<const N: usize>(a: &[u64; N], b: &[u64; N]) -> bool {
    a.iter().rev().cmp(b.iter().rev()).is_lt()
}

/// The value of big-endian `bytes`, or `None` when it does not fit in N limbs.
#[cfg(test)]
pub(crate) fn from_be_bytes<const N: usize>(bytes: &[u8]) -> Option<[u64; N]> {
    let start = bytes.iter().position(|&b| b != 0).unwrap_or(bytes.len());
    let bytes = &bytes[start..];
    if bytes.len() > 8 * N {
        return None;
    }
    let mut out = [0u64; N];
    for (i, chunk) in bytes.rchunks(8).enumerate() {
        let mut word = [0u8; 8];
        word[8 - chunk.len()..].copy_from_slice(chunk);
        out[i] = u64::from_be_bytes(word);
    }
    Some(out)
}

/// The 8·N big-endian bytes of `x`.
pub(crate) fn to_be_bytes<const N: usize>(x: &[u64; N]) -> Vec<u8> {
    x.iter().rev().flat_map(|l| l.to_be_bytes()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_round_trip_and_shift() {
        let x: [u64; 3] = from_be_bytes(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]).unwrap();
        assert_eq!(x, [0x0405060708090a0b, 0x010203, 0]);
        assert_eq!(&to_be_bytes(&x)[13..], &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
        assert_eq!(
            from_be_bytes::<1>(&[0, 0, 0, 0, 0, 0, 0, 0, 0, 7]),
            Some([7])
        );
        assert_eq!(from_be_bytes::<1>(&[1, 0, 0, 0, 0, 0, 0, 0, 0]), None);
        assert_eq!(shr(&x, 8), [0x030405060708090a, 0x0102, 0]);
        assert_eq!(shr(&x, 64), [0x010203, 0, 0]);
        assert_eq!(shr(&x, 72), [0x0102, 0, 0]);
        assert_eq!(shr(&x, 192), [0, 0, 0]);
        assert_eq!(bit_len(&x), 64 + 17);
        assert_eq!(trailing_zeros(&[0u64, 8]), 67);
        assert_eq!(trailing_zeros(&[0u64, 0]), 128);
        assert_eq!(add_small(&[u64::MAX, u64::MAX], 1), ([0, 0], true));
        assert_eq!(add_small(&[u64::MAX, 0], 2), ([1, 1], false));
        assert_eq!(sub(&[0u64, 1], &[1, 0]), ([u64::MAX, 0], 0));
        assert_eq!(sub(&[0u64, 0], &[1, 0]), ([u64::MAX, u64::MAX], 1));
        assert!(less(&[5u64, 1], &[0, 2]) && !less(&[0u64, 2], &[5, 1]));
        let y = [0xf000_0000_0000_0000u64, 0b1011];
        assert_eq!(bits_at(&y, 62, 5), 0b01111);
        assert_eq!(bits_at(&y, 65, 5), 0b101);
        assert_eq!(bits_at(&y, 125, 3), 0);
        assert_eq!(bits_at(&y, 200, 3), 0);
        let chunks: Vec<u64> = chunks_from_top(&y, 13).collect();
        assert_eq!(chunks.len(), 10);
        assert_eq!(chunks[0], 0); // the top 11 bits
        let value = chunks.iter().fold(0u128, |v, &c| (v << 13) | u128::from(c));
        assert_eq!(value, (0b1011u128 << 64) | 0xf000_0000_0000_0000);
        assert_eq!(eq_mask(3, 3), u64::MAX);
        assert_eq!(eq_mask(3, 4), 0);
        assert_eq!(eq_mask(0, 1 << 63), 0);
    }
}
