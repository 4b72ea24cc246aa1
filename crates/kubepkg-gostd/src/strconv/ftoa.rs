//! `strconv.FormatFloat` (Go's `internal/strconv/ftoa.go`): the `'e' 'E' 'f' 'g' 'G' 'b' 'x'
//! 'X'` formats, shortest (`prec` -1) or with a precision, at 64 or 32 bits.
//!
//! Go and Rust both find the shortest decimal that reads back as the same float, and both round
//! a fixed precision exactly (ties to even), so the digits come from Rust's formatter and only
//! the layout is rebuilt here. The one place the digits can differ is an exact tie between two
//! shortest decimals, where Go keeps the even one ([`break_tie_to_even`]).

/// The decimal digits of a float, `0.d1d2… × 10^dp`, without trailing zeros (none for zero).
struct Decimal {
    digits: Vec<u8>,
    dp: i32,
}

/// Precision at which every digit of an `f64` is known: further digits are zeros.
const MAX_EXACT_DIGITS: usize = 1100;

/// The IEEE layout of the float type being formatted (Go's `floatInfo`).
#[derive(Clone, Copy)]
struct FloatInfo {
    mantbits: u32,
    expbits: u32,
    bias: i64,
}

const F64: FloatInfo = FloatInfo {
    mantbits: 52,
    expbits: 11,
    bias: -1023,
};
const F32: FloatInfo = FloatInfo {
    mantbits: 23,
    expbits: 8,
    bias: -127,
};

fn decimal_from_exp(s: &str) -> Decimal {
    let (mant, exp) = s.split_once('e').unwrap_or((s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let mut digits: Vec<u8> = mant.bytes().filter(u8::is_ascii_digit).collect();
    if digits.iter().all(|&c| c == b'0') {
        return Decimal {
            digits: Vec::new(),
            dp: 0,
        };
    }
    while digits.last() == Some(&b'0') {
        digits.pop();
    }
    Decimal {
        digits,
        dp: exp + 1,
    }
}

/// Shortest digits that read back as `x` at the given size.
fn shortest_digits(x: f64, bits32: bool) -> Decimal {
    let s = if bits32 {
        format!("{:e}", (x as f32).abs())
    } else {
        format!("{:e}", x.abs())
    };
    let mut d = decimal_from_exp(&s);
    break_tie_to_even(&mut d, x, bits32);
    d
}

/// `x` rounded to `n` (at least 1) significant digits.
fn rounded_digits(x: f64, n: usize) -> Decimal {
    let n = n.clamp(1, MAX_EXACT_DIGITS);
    decimal_from_exp(&format!("{:.*e}", n - 1, x.abs()))
}

/// The float as `m × 2^e` exactly (`m` an integer).
fn mantissa_exponent(bits: u64, flt: FloatInfo) -> (u64, i64) {
    let exp = ((bits >> flt.mantbits) & ((1 << flt.expbits) - 1)) as i64;
    let frac = bits & ((1u64 << flt.mantbits) - 1);
    if exp == 0 {
        (frac, 1 + flt.bias - i64::from(flt.mantbits))
    } else {
        (
            frac | (1u64 << flt.mantbits),
            exp + flt.bias - i64::from(flt.mantbits),
        )
    }
}

fn pow10(k: u32) -> Option<u128> {
    10u128.checked_pow(k)
}

/// When two shortest decimals are exactly equally close to `x`, Go keeps the one with an even
/// last digit; Rust's formatter may give the other. Detect the exact tie with integer
/// arithmetic (where it fits in 128 bits) and switch to Go's choice.
fn break_tie_to_even(d: &mut Decimal, x: f64, bits32: bool) {
    let Some(&last) = d.digits.last() else {
        return;
    };
    if (last - b'0').is_multiple_of(2) || d.digits.len() > 38 {
        return;
    }
    let Ok(digits) = std::str::from_utf8(&d.digits)
        .unwrap_or("x")
        .parse::<u128>()
    else {
        return;
    };
    let (m, e) = if bits32 {
        mantissa_exponent(u64::from((x as f32).to_bits()), F32)
    } else {
        mantissa_exponent(x.abs().to_bits(), F64)
    };
    // x is n / 10^s exactly.
    let (n, s): (u128, u32) = if e >= 0 {
        match (m as u128).checked_shl(e as u32) {
            Some(v) if e < 74 => (v, 0),
            _ => return,
        }
    } else {
        match 5u128
            .checked_pow((-e) as u32)
            .and_then(|p| p.checked_mul(m as u128))
        {
            Some(v) => (v, (-e) as u32),
            None => return,
        }
    };
    // The candidates are c / 10^t with t = len - dp; a tie when 2n·10^t == (c + other)·10^s.
    let t = d.digits.len() as i32 - d.dp;
    for other in [digits - 1, digits + 1] {
        let mid2 = digits + other;
        let (lhs, rhs) = if t >= 0 {
            (
                n.checked_mul(2)
                    .and_then(|v| pow10(t as u32).and_then(|p| v.checked_mul(p))),
                pow10(s).and_then(|p| mid2.checked_mul(p)),
            )
        } else {
            (
                n.checked_mul(2),
                pow10(s + (-t) as u32).and_then(|p| mid2.checked_mul(p)),
            )
        };
        let (Some(l), Some(r)) = (lhs, rhs) else {
            continue;
        };
        if l != r {
            continue;
        }
        let cand = format!("{:0width$}", other, width = d.digits.len());
        if cand.len() != d.digits.len() || cand.starts_with('0') {
            return;
        }
        // The other candidate must read back as the same float too.
        let text = format!("0.{cand}e{}", d.dp);
        let reads_back = if bits32 {
            text.parse::<f32>().ok() == Some((x as f32).abs())
        } else {
            text.parse::<f64>().ok() == Some(x.abs())
        };
        if reads_back {
            let mut digits = cand.into_bytes();
            while digits.last() == Some(&b'0') {
                digits.pop();
            }
            d.digits = digits;
        }
        return;
    }
}

fn fmt_e(out: &mut String, d: &Decimal, prec: i64, e: char) {
    out.push(d.digits.first().copied().unwrap_or(b'0') as char);
    if prec > 0 {
        out.push('.');
        let mut i = 1usize;
        let m = d.digits.len().min(prec as usize + 1);
        if i < m {
            out.push_str(std::str::from_utf8(&d.digits[i..m]).unwrap_or(""));
            i = m;
        }
        while (i as i64) <= prec {
            out.push('0');
            i += 1;
        }
    }
    out.push(e);
    let exp = if d.digits.is_empty() { 0 } else { d.dp - 1 };
    push_exponent(out, i64::from(exp));
}

/// An exponent as `%e` and `%x` write it: its sign, then at least two digits.
fn push_exponent(out: &mut String, exp: i64) {
    out.push(if exp < 0 { '-' } else { '+' });
    let exp = exp.unsigned_abs();
    if exp < 10 {
        out.push('0');
    }
    out.push_str(&exp.to_string());
}

fn fmt_f(out: &mut String, d: &Decimal, prec: i64) {
    if d.dp > 0 {
        let m = d.digits.len().min(d.dp as usize);
        out.push_str(std::str::from_utf8(&d.digits[..m]).unwrap_or(""));
        for _ in m..d.dp as usize {
            out.push('0');
        }
    } else {
        out.push('0');
    }
    if prec > 0 {
        out.push('.');
        for i in 1..=prec {
            let j = i64::from(d.dp) + i - 1;
            out.push(if j >= 0 && (j as usize) < d.digits.len() {
                d.digits[j as usize] as char
            } else {
                '0'
            });
        }
    }
}

/// Go's `strconv.FormatFloat(x, fmt, prec, bit_size)`: `fmt` one of `e E f g G b x X`, `prec`
/// -1 for the shortest text that reads back as `x`, `bit_size` 32 (`x` is rounded to a
/// `float32` first) or 64. An unknown `fmt` gives `%` and the letter, as in Go.
pub fn format_float(x: f64, fmt: char, prec: i64, bit_size: u32) -> String {
    let bits32 = bit_size == 32;
    let x = if bits32 { f64::from(x as f32) } else { x };
    if x.is_nan() {
        return "NaN".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "+Inf" } else { "-Inf" }.into();
    }
    let mut out = String::new();
    let neg = x.is_sign_negative();
    let flt = if bits32 { F32 } else { F64 };
    match fmt {
        'b' | 'x' | 'X' => {
            let bits = if bits32 {
                u64::from((x as f32).to_bits())
            } else {
                x.to_bits()
            };
            let mut exp = ((bits >> flt.mantbits) & ((1 << flt.expbits) - 1)) as i64;
            let mut mant = bits & ((1u64 << flt.mantbits) - 1);
            if exp == 0 {
                exp += 1;
            } else {
                mant |= 1u64 << flt.mantbits;
            }
            exp += flt.bias;
            if neg {
                out.push('-');
            }
            if fmt == 'b' {
                exp -= i64::from(flt.mantbits);
                out.push_str(&mant.to_string());
                out.push('p');
                if exp >= 0 {
                    out.push('+');
                }
                out.push_str(&exp.to_string());
            } else {
                fmt_x(&mut out, mant, exp, prec, fmt, flt);
            }
            return out;
        }
        'e' | 'E' | 'f' | 'g' | 'G' => {}
        _ => return format!("%{fmt}"),
    }
    if neg {
        out.push('-');
    }
    let shortest = prec < 0;
    match fmt {
        'e' | 'E' => {
            let d = if shortest {
                shortest_digits(x, bits32)
            } else {
                rounded_digits(x, prec as usize + 1)
            };
            let p = if shortest {
                (d.digits.len() as i64 - 1).max(0)
            } else {
                prec
            };
            fmt_e(&mut out, &d, p, fmt);
        }
        'f' => {
            if shortest {
                let d = shortest_digits(x, bits32);
                let p = (d.digits.len() as i64 - i64::from(d.dp)).max(0);
                fmt_f(&mut out, &d, p);
            } else {
                let p = (prec as usize).min(MAX_EXACT_DIGITS);
                out.push_str(&format!("{:.*}", p, x.abs()));
                for _ in p..prec as usize {
                    out.push('0');
                }
            }
        }
        _ => {
            let ech = if fmt == 'g' { 'e' } else { 'E' };
            let (d, mut p) = if shortest {
                let d = shortest_digits(x, bits32);
                let n = d.digits.len() as i64;
                (d, n)
            } else {
                let p = if prec == 0 { 1 } else { prec };
                (rounded_digits(x, p as usize), p)
            };
            let nd = d.digits.len() as i64;
            let dp = i64::from(d.dp);
            let mut eprec = p;
            if eprec > nd && nd >= dp {
                eprec = nd;
            }
            // With the shortest digits Go decides by a precision of 6.
            if shortest {
                eprec = 6;
            }
            let exp = dp - 1;
            if exp < -4 || exp >= eprec {
                if p > nd {
                    p = nd;
                }
                fmt_e(&mut out, &d, p - 1, ech);
            } else {
                if p > dp {
                    p = nd;
                }
                fmt_f(&mut out, &d, (p - dp).max(0));
            }
        }
    }
    out
}

/// Go's `%x`/`%X` hexadecimal float (`fmtX`): `mant × 2^(exp - mantbits)`.
fn fmt_x(out: &mut String, mut mant: u64, mut exp: i64, prec: i64, fmt: char, flt: FloatInfo) {
    if mant == 0 {
        exp = 0;
    }
    mant <<= 60 - flt.mantbits;
    while mant != 0 && mant & (1u64 << 60) == 0 {
        mant <<= 1;
        exp -= 1;
    }
    if (0..15).contains(&prec) {
        let shift = (prec * 4) as u32;
        let extra = (mant << shift) & ((1u64 << 60) - 1);
        mant >>= 60 - shift;
        if extra | (mant & 1) > 1u64 << 59 {
            mant += 1;
        }
        mant <<= 60 - shift;
        if mant & (1u64 << 61) != 0 {
            mant >>= 1;
            exp += 1;
        }
    }
    let hex: &[u8] = if fmt == 'X' {
        b"0123456789ABCDEF"
    } else {
        b"0123456789abcdef"
    };
    out.push('0');
    out.push(fmt);
    out.push((b'0' + ((mant >> 60) & 1) as u8) as char);
    mant <<= 4;
    if prec < 0 && mant != 0 {
        out.push('.');
        while mant != 0 {
            out.push(hex[((mant >> 60) & 15) as usize] as char);
            mant <<= 4;
        }
    } else if prec > 0 {
        out.push('.');
        for _ in 0..prec {
            out.push(hex[((mant >> 60) & 15) as usize] as char);
            mant <<= 4;
        }
    }
    out.push(if fmt == 'X' { 'P' } else { 'p' });
    push_exponent(out, exp);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn g_switches_to_an_exponent_at_1e6_and_below_1e_4() {
        assert_eq!(format_float(1e6, 'g', -1, 64), "1e+06");
        assert_eq!(format_float(123456.0, 'g', -1, 64), "123456");
        assert_eq!(format_float(0.00001, 'g', -1, 64), "1e-05");
        assert_eq!(format_float(-0.0, 'g', -1, 64), "-0");
        assert_eq!(format_float(0.1, 'g', -1, 32), "0.1");
        assert_eq!(format_float(1234.5678, 'g', 3, 64), "1.23e+03");
    }

    // Regression: an exact tie between two 17-digit decimals; Go keeps the even one.
    #[test]
    fn shortest_tie_keeps_the_even_digit() {
        let f: f64 = "1.2993909193068512e+15".parse().unwrap();
        assert_eq!(format_float(f, 'f', -1, 64), "1299390919306851.2");
    }

    #[test]
    fn unknown_format_is_percent_letter() {
        assert_eq!(format_float(-1.0, 'z', -1, 64), "%z");
    }
}
