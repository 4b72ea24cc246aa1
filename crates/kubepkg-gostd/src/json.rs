//! `encoding/json`'s text of a `float64` (`encode.go`'s `floatEncoder`): `strconv`'s shortest
//! `'f'` form, or `'e'` below 1e-6 and from 1e21 on with a one-digit negative exponent written
//! as one digit (`1e-7`, `1e+21`).

use crate::strconv::format_float;

/// The JSON text of `f` as Go's `json.Marshal` writes a `float64`; `None` for NaN and the
/// infinities, which Go refuses (`json: unsupported value: NaN`).
pub fn format_float64(f: f64) -> Option<String> {
    if !f.is_finite() {
        return None;
    }
    let a = f.abs();
    if a != 0.0 && !(1e-6..1e21).contains(&a) {
        let mut s = format_float(f, 'e', -1, 64);
        let n = s.len();
        let b = s.as_bytes();
        if n >= 4 && b[n - 4] == b'e' && b[n - 3] == b'-' && b[n - 2] == b'0' {
            s.remove(n - 2);
        }
        Some(s)
    } else {
        Some(format_float(f, 'f', -1, 64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds() {
        assert_eq!(format_float64(1e21).unwrap(), "1e+21");
        assert_eq!(format_float64(1e20).unwrap(), "100000000000000000000");
        assert_eq!(format_float64(1e-7).unwrap(), "1e-7");
        assert_eq!(format_float64(0.000001).unwrap(), "0.000001");
        assert_eq!(format_float64(-0.0).unwrap(), "-0");
        assert_eq!(format_float64(f64::NAN), None);
    }
}
