//! Sprig's math: integer arithmetic over `interface{}` arguments cast with spf13/cast and
//! returning `int64` (wrapping on overflow, Go's divide-by-zero panic), float math through
//! shopspring/decimal (operands taken at their shortest decimal form, division rounded to 16
//! places), `round`/`floor`/`ceil`, and the conversions `int`, `int64`, `float64`, `atoi`,
//! `toDecimal`.

use kubepkg_template::{FuncResult, Function};
use kubepkg_value::Value;
use rand::Rng;

use crate::args::{arg, int, s};
use crate::cast::{to_float64, to_int, to_int64};
use crate::gofmt;
use crate::{f, fv};

const DIV_ZERO: &str = "runtime error: integer divide by zero";

pub(crate) fn functions() -> Vec<Function> {
    vec![
        f!("add1", [Any], |a| Ok(Value::Int64(
            to_int64(arg(a, 0)).wrapping_add(1)
        ))),
        fv!("add", [], Any, |a| Ok(Value::Int64(
            a.iter().fold(0i64, |acc, x| acc.wrapping_add(to_int64(x)))
        ))),
        f!("sub", [Any, Any], |a| Ok(Value::Int64(
            to_int64(arg(a, 0)).wrapping_sub(to_int64(arg(a, 1)))
        ))),
        f!("div", [Any, Any], |a| {
            let d = to_int64(arg(a, 1));
            if d == 0 {
                return Err(DIV_ZERO.into());
            }
            Ok(Value::Int64(to_int64(arg(a, 0)).wrapping_div(d)))
        }),
        f!("mod", [Any, Any], |a| {
            let d = to_int64(arg(a, 1));
            if d == 0 {
                return Err(DIV_ZERO.into());
            }
            Ok(Value::Int64(to_int64(arg(a, 0)).wrapping_rem(d)))
        }),
        fv!("mul", [Any], Any, |a| {
            Ok(Value::Int64(
                a[1..]
                    .iter()
                    .fold(to_int64(arg(a, 0)), |acc, x| acc.wrapping_mul(to_int64(x))),
            ))
        }),
        f!("randInt", [Int, Int], |a| {
            let (min, max) = (int(a, 0), int(a, 1));
            let n = max.wrapping_sub(min);
            if n <= 0 {
                return Err("invalid argument to Intn".into());
            }
            Ok(Value::Int(rand::thread_rng().gen_range(0..n) + min))
        }),
        f!("add1f", [Any], |a| decimal_op(
            arg(a, 0),
            &[Value::Int(1)],
            Op::Add
        )),
        fv!("addf", [], Any, |a| decimal_op(
            &Value::Float(0.0),
            a,
            Op::Add
        )),
        fv!("subf", [Any], Any, |a| decimal_op(
            arg(a, 0),
            &a[1..],
            Op::Sub
        )),
        fv!("divf", [Any], Any, |a| decimal_op(
            arg(a, 0),
            &a[1..],
            Op::Div
        )),
        fv!("mulf", [Any], Any, |a| decimal_op(
            arg(a, 0),
            &a[1..],
            Op::Mul
        )),
        fv!("biggest", [Any], Any, |a| Ok(Value::Int64(fold_ints(
            a,
            i64::max
        )))),
        fv!("max", [Any], Any, |a| Ok(Value::Int64(fold_ints(
            a,
            i64::max
        )))),
        fv!("min", [Any], Any, |a| Ok(Value::Int64(fold_ints(
            a,
            i64::min
        )))),
        fv!("maxf", [Any], Any, |a| Ok(Value::Float(fold_floats(
            a, go_max
        )))),
        fv!("minf", [Any], Any, |a| Ok(Value::Float(fold_floats(
            a, go_min
        )))),
        f!("ceil", [Any], |a| Ok(Value::Float(
            to_float64(arg(a, 0)).ceil()
        ))),
        f!("floor", [Any], |a| Ok(Value::Float(
            to_float64(arg(a, 0)).floor()
        ))),
        fv!("round", [Any, Int], Float64, |a| {
            let round_on = match a.get(2) {
                Some(Value::Float(f)) => *f,
                _ => 0.5,
            };
            Ok(Value::Float(round(
                to_float64(arg(a, 0)),
                int(a, 1),
                round_on,
            )))
        }),
        f!("int64", [Any], |a| Ok(Value::Int64(to_int64(arg(a, 0))))),
        f!("int", [Any], |a| Ok(Value::Int(to_int(arg(a, 0))))),
        f!("float64", [Any], |a| Ok(Value::Float(to_float64(arg(
            a, 0
        ))))),
        f!("atoi", [String], |a| Ok(Value::Int(atoi(s(a, 0))))),
        f!("toDecimal", [Any], |a| Ok(Value::Int64(to_decimal(arg(
            a, 0
        ))))),
    ]
}

/// Go's `math.Max` (NaN wins, +0 beats -0).
/// Every argument as an `int64`, folded with `f` (Sprig's `max`, `min`).
fn fold_ints(a: &[Value], f: fn(i64, i64) -> i64) -> i64 {
    a[1..].iter().map(to_int64).fold(to_int64(arg(a, 0)), f)
}

/// Every argument as a `float64`, folded with `f` (Sprig's `maxf`, `minf`).
fn fold_floats(a: &[Value], f: fn(f64, f64) -> f64) -> f64 {
    a[1..].iter().map(to_float64).fold(to_float64(arg(a, 0)), f)
}

fn go_max(x: f64, y: f64) -> f64 {
    if x.is_infinite() && x > 0.0 || y.is_infinite() && y > 0.0 {
        return f64::INFINITY;
    }
    if x.is_nan() || y.is_nan() {
        return f64::NAN;
    }
    if x == 0.0 && y == 0.0 {
        return if x.is_sign_negative() { y } else { x };
    }
    if x > y { x } else { y }
}

/// Go's `math.Min`.
fn go_min(x: f64, y: f64) -> f64 {
    if x.is_infinite() && x < 0.0 || y.is_infinite() && y < 0.0 {
        return f64::NEG_INFINITY;
    }
    if x.is_nan() || y.is_nan() {
        return f64::NAN;
    }
    if x == 0.0 && y == 0.0 {
        return if x.is_sign_negative() { x } else { y };
    }
    if x < y { x } else { y }
}

fn round(val: f64, places: i64, round_on: f64) -> f64 {
    let pow = 10f64.powf(places as f64);
    let digit = pow * val;
    let div = digit.fract();
    let r = if div >= round_on {
        digit.ceil()
    } else {
        digit.floor()
    };
    r / pow
}

/// `strconv.Atoi` with Sprig's discarded error: syntax errors give 0, range errors the clamped
/// value Go returns alongside the error.
fn atoi(s: &str) -> i64 {
    let (neg, digits) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return 0;
    }
    match s.parse::<i64>() {
        Ok(v) => v,
        Err(_) => {
            if neg {
                i64::MIN
            } else {
                i64::MAX
            }
        }
    }
}

/// Sprig `toDecimal`: `strconv.ParseInt(fmt.Sprint(v), 8, 64)`, 0 on error.
fn to_decimal(v: &Value) -> i64 {
    let text = gofmt::sprint_v(v);
    let (neg, digits) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text.as_str()),
    };
    if digits.is_empty() || !digits.bytes().all(|b| (b'0'..=b'7').contains(&b)) {
        return 0;
    }
    match i128::from_str_radix(digits, 8) {
        Ok(m) => {
            let v = if neg { -m } else { m };
            i64::try_from(v).unwrap_or(0)
        }
        Err(_) => 0,
    }
}

#[derive(Clone, Copy)]
enum Op {
    Add,
    Sub,
    Mul,
    Div,
}

/// A decimal `mant × 10^exp`, as shopspring/decimal holds it (bounded to i128 here).
#[derive(Clone, Copy, Debug)]
struct Decimal {
    mant: i128,
    exp: i32,
}

/// shopspring's `DivisionPrecision`.
const DIVISION_PRECISION: i32 = 16;

fn pow10(n: u32) -> Option<i128> {
    10i128.checked_pow(n)
}

impl Decimal {
    /// `decimal.NewFromFloat`: the shortest decimal that round-trips to `f`.
    fn from_f64(f: f64) -> Result<Decimal, String> {
        if !f.is_finite() {
            return Err(format!(
                "Cannot create a Decimal from {}",
                gofmt::format_float_g(f)
            ));
        }
        if f == 0.0 {
            return Ok(Decimal { mant: 0, exp: 0 });
        }
        let e = format!("{:e}", f);
        let (m, x) = e.split_once('e').unwrap_or((&e, "0"));
        let neg = m.starts_with('-');
        let digits: String = m.chars().filter(char::is_ascii_digit).collect();
        let x: i32 = x.parse().unwrap_or(0);
        let mant: i128 = digits.parse().unwrap_or(0);
        Ok(Decimal {
            mant: if neg { -mant } else { mant },
            exp: x - (digits.len() as i32 - 1),
        })
    }

    fn rescale(self, exp: i32) -> Option<i128> {
        if exp > self.exp {
            return None;
        }
        self.mant.checked_mul(pow10((self.exp - exp) as u32)?)
    }

    fn add(self, o: Decimal) -> Option<Decimal> {
        let exp = self.exp.min(o.exp);
        Some(Decimal {
            mant: self.rescale(exp)?.checked_add(o.rescale(exp)?)?,
            exp,
        })
    }

    fn mul(self, o: Decimal) -> Option<Decimal> {
        Some(Decimal {
            mant: self.mant.checked_mul(o.mant)?,
            exp: self.exp.checked_add(o.exp)?,
        })
    }

    /// `DivRound(o, 16)`: the quotient rounded half away from zero to 16 decimal places.
    fn div(self, o: Decimal) -> Option<Decimal> {
        // q = self.mant / o.mant × 10^(self.exp − o.exp); scaled by 10^16.
        let shift = self.exp - o.exp + DIVISION_PRECISION;
        let (num, den) = if shift >= 0 {
            (self.mant.checked_mul(pow10(shift as u32)?)?, o.mant)
        } else {
            (self.mant, o.mant.checked_mul(pow10((-shift) as u32)?)?)
        };
        let q = num / den;
        let r = num % den;
        let q = if r.unsigned_abs() * 2 >= den.unsigned_abs() {
            if (num < 0) != (den < 0) { q - 1 } else { q + 1 }
        } else {
            q
        };
        Some(Decimal {
            mant: q,
            exp: -DIVISION_PRECISION,
        })
    }

    fn to_f64(self) -> f64 {
        format!("{}e{}", self.mant, self.exp).parse().unwrap_or(0.0)
    }
}

fn decimal_op(first: &Value, rest: &[Value], op: Op) -> FuncResult {
    let mut acc = Decimal::from_f64(to_float64(first))?;
    let mut approx = to_float64(first);
    let mut exact = true;
    for x in rest {
        let fx = to_float64(x);
        let d = Decimal::from_f64(fx)?;
        if matches!(op, Op::Div) && fx == 0.0 {
            return Err("decimal division by 0".into());
        }
        approx = match op {
            Op::Add => approx + fx,
            Op::Sub => approx - fx,
            Op::Mul => approx * fx,
            Op::Div => approx / fx,
        };
        if exact {
            let next = match op {
                Op::Add => acc.add(d),
                Op::Sub => acc.add(Decimal {
                    mant: -d.mant,
                    exp: d.exp,
                }),
                Op::Mul => acc.mul(d),
                Op::Div => acc.div(d),
            };
            match next {
                Some(n) => acc = n,
                None => exact = false,
            }
        }
    }
    Ok(Value::Float(if exact { acc.to_f64() } else { approx }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_math_avoids_binary_float_error() {
        // Sprig docs (mathf.md): addf 1.5 2 2 = 5.5; 0.1+0.2 is exact in decimal.
        let r = decimal_op(
            &Value::Float(0.0),
            &[Value::Float(0.1), Value::Float(0.2)],
            Op::Add,
        )
        .unwrap();
        assert_eq!(r, Value::Float(0.3));
        let r = decimal_op(&Value::Float(10.0), &[Value::Float(3.0)], Op::Div).unwrap();
        assert_eq!(r, Value::Float(3.3333333333333335));
        let r = decimal_op(
            &Value::Float(0.0),
            &[Value::Float(1.5), Value::Int(2), Value::Int(2)],
            Op::Add,
        )
        .unwrap();
        assert_eq!(r, Value::Float(5.5));
    }

    #[test]
    fn round_matches_sprig_docs() {
        assert_eq!(round(123.555555, 3, 0.5), 123.556);
        assert_eq!(atoi("99999999999999999999"), i64::MAX);
        assert_eq!(atoi("12a"), 0);
        assert_eq!(to_decimal(&Value::str("0777")), 511);
    }
}
