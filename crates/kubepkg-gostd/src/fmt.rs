//! The number forms of Go's `fmt` (`fmt/format.go`, and the verb choice of `fmt/print.go`'s
//! `fmtInteger`/`fmtFloat`): one verb's flags, width and precision ([`Flags`]), padding, and the
//! text of integers (`%d %b %o %O %x %X %c %q %U`, `%#v` of unsigned), floats (`%e %E %f %F %g
//! %G %b %x %X %v`), strings (`%s %q %x %X`, precision counting runes) and booleans.
//!
//! Printing a whole value (`Sprint`, `Sprintf` over Go values: maps, slices, structs, error
//! annotations such as `%!d(string=x)`) belongs to the value model and lives in
//! `kubepkg-template`; it keeps a [`Fmt`] and calls these.

use crate::strconv;
use crate::utf8;

/// One verb's flags, width and precision (the fields of Go's `fmt.fmtFlags` and `fmt.fmt`).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Flags {
    pub plus: bool,
    pub minus: bool,
    pub sharp: bool,
    pub space: bool,
    pub zero: bool,
    /// `%+v`
    pub plus_v: bool,
    /// `%#v`
    pub sharp_v: bool,
    pub wid: usize,
    pub wid_present: bool,
    pub prec: usize,
    pub prec_present: bool,
}

impl Flags {
    /// The flags, width and precision of one verb written as Go writes it (`%+08.3`, without the
    /// verb letter); `None` for text that is not that. Width and precision are written digits
    /// (no `*`, no `[n]`).
    pub fn parse(spec: &str) -> Option<Flags> {
        let b = spec.as_bytes();
        let mut i = 1;
        if b.first() != Some(&b'%') {
            return None;
        }
        let mut f = Flags::default();
        while i < b.len() {
            match b[i] {
                b'#' => f.sharp = true,
                b'0' => f.zero = !f.minus,
                b'+' => f.plus = true,
                b'-' => {
                    f.minus = true;
                    f.zero = false;
                }
                b' ' => f.space = true,
                _ => break,
            }
            i += 1;
        }
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i > start {
            f.wid = spec[start..i].parse().ok()?;
            f.wid_present = true;
        }
        if i < b.len() && b[i] == b'.' {
            i += 1;
            let start = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            f.prec = if i > start {
                spec[start..i].parse().ok()?
            } else {
                0
            };
            f.prec_present = true;
        }
        (i == b.len()).then_some(f)
    }

    /// What Go's `Printf` does to the flags for a `v` verb: `#` becomes `%#v`, `+` `%+v`.
    pub fn for_v(mut self) -> Flags {
        self.sharp_v = self.sharp;
        self.sharp = false;
        self.plus_v = self.plus;
        self.plus = false;
        self
    }
}

/// A verb the value's type does not take: the caller writes Go's `%!verb(type=value)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BadVerb;

/// Go's `fmt.fmt`: an output buffer (Go strings are bytes) and the current verb's [`Flags`].
#[derive(Debug, Default)]
pub struct Fmt {
    pub buf: Vec<u8>,
    pub flags: Flags,
}

const LDIGITS: &[u8; 16] = b"0123456789abcdef";
const UDIGITS: &[u8; 16] = b"0123456789ABCDEF";

impl Fmt {
    pub fn write_str(&mut self, s: &str) {
        self.buf.extend_from_slice(s.as_bytes());
    }

    pub fn write_char(&mut self, c: char) {
        let mut b = [0u8; 4];
        self.buf.extend_from_slice(c.encode_utf8(&mut b).as_bytes());
    }

    pub fn write_bytes(&mut self, b: &[u8]) {
        self.buf.extend_from_slice(b);
    }

    /// `n` spaces, or zeros with the `0` flag (and no `-`).
    pub fn write_padding(&mut self, n: usize) {
        let c = if self.flags.zero && !self.flags.minus {
            b'0'
        } else {
            b' '
        };
        self.buf.resize(self.buf.len() + n, c);
    }

    /// Go's `pad`: `s` padded to the width, counted in runes, on the left or (`-`) the right.
    pub fn pad(&mut self, s: &str) {
        self.pad_bytes(s.as_bytes());
    }

    /// [`Fmt::pad`] of Go string bytes (each invalid byte is one rune).
    pub fn pad_bytes(&mut self, b: &[u8]) {
        if !self.flags.wid_present || self.flags.wid == 0 {
            self.write_bytes(b);
            return;
        }
        let width = self.flags.wid.saturating_sub(utf8::rune_count(b));
        if !self.flags.minus {
            self.write_padding(width);
            self.write_bytes(b);
        } else {
            self.write_bytes(b);
            self.write_padding(width);
        }
    }

    /// `%t` and `%v` of a bool.
    pub fn fmt_boolean(&mut self, v: bool) {
        self.pad(if v { "true" } else { "false" });
    }

    /// `%s`: the string, cut to the precision (in runes).
    pub fn fmt_s(&mut self, s: &[u8]) {
        let s = self.truncate(s);
        self.pad_bytes(s);
    }

    fn truncate<'a>(&self, s: &'a [u8]) -> &'a [u8] {
        if self.flags.prec_present {
            &s[..utf8::prefix_len(s, self.flags.prec)]
        } else {
            s
        }
    }

    /// `%x`/`%X` of string bytes: two hex digits a byte, `% x` spaced, `%#x` with `0x`; the
    /// precision counts bytes, and so does the width.
    pub fn fmt_sx(&mut self, b: &[u8], upper: bool) {
        let d = if upper { UDIGITS } else { LDIGITS };
        let mut length = b.len();
        if self.flags.prec_present && self.flags.prec < length {
            length = self.flags.prec;
        }
        let mut out = Vec::with_capacity(length * 2);
        for (i, c) in b[..length].iter().enumerate() {
            if self.flags.space && i > 0 {
                out.push(b' ');
            }
            if self.flags.sharp && (self.flags.space || i == 0) {
                out.push(b'0');
                out.push(if upper { b'X' } else { b'x' });
            }
            out.push(d[(c >> 4) as usize]);
            out.push(d[(c & 0xF) as usize]);
        }
        if !self.flags.wid_present || self.flags.wid <= out.len() {
            self.write_bytes(&out);
            return;
        }
        let n = self.flags.wid - out.len();
        if self.flags.minus {
            self.write_bytes(&out);
            self.write_padding(n);
        } else {
            self.write_padding(n);
            self.write_bytes(&out);
        }
    }

    /// `%q` of a string: `strconv.Quote` (`%+q` `QuoteToASCII`), or a raw string with `%#q`
    /// when it can be one.
    pub fn fmt_q(&mut self, s: &[u8]) {
        let s = self.truncate(s);
        if self.flags.sharp && strconv::can_backquote(s) {
            let mut q = Vec::with_capacity(s.len() + 2);
            q.push(b'`');
            q.extend_from_slice(s);
            q.push(b'`');
            self.pad_bytes(&q);
            return;
        }
        let q = strconv::quote_bytes(s, self.flags.plus);
        self.pad(&q);
    }

    /// `%c` of an integer.
    pub fn fmt_c(&mut self, u: u64) {
        let c = rune_of(u);
        let mut b = [0u8; 4];
        self.pad(c.encode_utf8(&mut b));
    }

    /// `%q` of an integer: the quoted rune.
    pub fn fmt_qc(&mut self, u: u64) {
        let q = strconv::quote_rune(rune_of(u), self.flags.plus);
        self.pad(&q);
    }

    /// `%U`: `U+0041`, with `%#U` `U+0041 'A'` for a printable rune.
    pub fn fmt_unicode(&mut self, u: u64) {
        let mut s = format!("U+{u:04X}");
        if self.flags.prec_present && self.flags.prec > 4 {
            s = format!("U+{:0w$X}", u, w = self.flags.prec);
        }
        if self.flags.sharp
            && u <= 0x10FFFF
            && let Some(c) = char::from_u32(u as u32)
            && strconv::is_print(c)
        {
            s.push_str(" '");
            s.push(c);
            s.push('\'');
        }
        let z = self.flags.zero;
        self.flags.zero = false;
        self.pad(&s);
        self.flags.zero = z;
    }

    /// Go's `fmtInteger`: `u` (a signed value's bits when `signed`) in `base`, with sign,
    /// precision or zero padding, and `#` prefixes; `verb` `O` adds `0o`.
    pub fn fmt_integer(&mut self, u: u64, base: u32, signed: bool, verb: char, upper: bool) {
        let f = self.flags;
        let negative = signed && (u as i64) < 0;
        let mut u = if negative {
            (u as i64).unsigned_abs()
        } else {
            u
        };
        let mut prec = 0usize;
        if f.prec_present {
            prec = f.prec;
            if prec == 0 && u == 0 {
                let z = self.flags.zero;
                self.flags.zero = false;
                self.write_padding(f.wid);
                self.flags.zero = z;
                return;
            }
        } else if f.zero && !f.minus && f.wid_present {
            prec = f.wid;
            if negative || f.plus || f.space {
                prec = prec.saturating_sub(1);
            }
        }
        let d = if upper { UDIGITS } else { LDIGITS };
        let base = u64::from(base);
        let mut rev: Vec<u8> = Vec::with_capacity(24);
        if u == 0 {
            rev.push(b'0');
        }
        while u > 0 {
            rev.push(d[(u % base) as usize]);
            u /= base;
        }
        while rev.len() < prec {
            rev.push(b'0');
        }
        if f.sharp {
            match base {
                2 => rev.extend_from_slice(b"b0"),
                8 if rev.last() != Some(&b'0') => rev.push(b'0'),
                16 => {
                    rev.push(if upper { b'X' } else { b'x' });
                    rev.push(b'0');
                }
                _ => {}
            }
        }
        if verb == 'O' {
            rev.extend_from_slice(b"o0");
        }
        if negative {
            rev.push(b'-');
        } else if f.plus {
            rev.push(b'+');
        } else if f.space {
            rev.push(b' ');
        }
        rev.reverse();
        let z = self.flags.zero;
        self.flags.zero = false;
        self.pad_bytes(&rev);
        self.flags.zero = z;
    }

    /// Go's `fmt0x64`: `u` in hex with (or without) the `0x` prefix.
    pub fn fmt_0x64(&mut self, u: u64, leading_0x: bool) {
        let sharp = self.flags.sharp;
        self.flags.sharp = leading_0x;
        self.fmt_integer(u, 16, false, 'v', false);
        self.flags.sharp = sharp;
    }

    /// `fmt/print.go`'s `fmtInteger`: an integer under `verb`.
    pub fn integer(&mut self, u: u64, signed: bool, verb: char) -> Result<(), BadVerb> {
        match verb {
            'v' if self.flags.sharp_v && !signed => self.fmt_0x64(u, true),
            'v' | 'd' => self.fmt_integer(u, 10, signed, verb, false),
            'b' => self.fmt_integer(u, 2, signed, verb, false),
            'o' | 'O' => self.fmt_integer(u, 8, signed, verb, false),
            'x' => self.fmt_integer(u, 16, signed, verb, false),
            'X' => self.fmt_integer(u, 16, signed, verb, true),
            'c' => self.fmt_c(u),
            'q' => self.fmt_qc(u),
            'U' => self.fmt_unicode(u),
            _ => return Err(BadVerb),
        }
        Ok(())
    }

    /// `fmt/print.go`'s `fmtFloat`: a float of `size` bits (32 or 64) under `verb`.
    pub fn float(&mut self, x: f64, size: u32, verb: char) -> Result<(), BadVerb> {
        match verb {
            'v' => self.fmt_float(x, size, 'g', -1),
            'b' | 'g' | 'G' | 'x' | 'X' => self.fmt_float(x, size, verb, -1),
            'f' | 'e' | 'E' => self.fmt_float(x, size, verb, 6),
            'F' => self.fmt_float(x, size, 'f', 6),
            _ => return Err(BadVerb),
        }
        Ok(())
    }

    /// Go's `fmt.fmtFloat`: `strconv.FormatFloat` with the flags' sign, `#` (keep the point and
    /// trailing zeros), zero padding after the sign, and the precision if one was given.
    pub fn fmt_float(&mut self, x: f64, size: u32, verb: char, prec: i64) {
        let f = self.flags;
        let prec = if f.prec_present { f.prec as i64 } else { prec };
        let mut num = strconv::format_float(x, verb, prec, size).into_bytes();
        if num.first() == Some(&b'-') || num.first() == Some(&b'+') {
        } else {
            num.insert(0, b'+');
        }
        if f.space && num[0] == b'+' && !f.plus {
            num[0] = b' ';
        }
        let b1 = num.get(1).copied();
        if b1 == Some(b'I') || b1 == Some(b'N') {
            let z = self.flags.zero;
            self.flags.zero = false;
            if b1 == Some(b'N') && !f.space && !f.plus {
                num.remove(0);
            }
            self.pad_bytes(&num);
            self.flags.zero = z;
            return;
        }
        if f.sharp && verb != 'b' {
            let mut digits: i64 = match verb {
                'v' | 'g' | 'G' | 'x' => {
                    if prec == -1 {
                        6
                    } else {
                        prec
                    }
                }
                _ => 0,
            };
            let mut tail: Vec<u8> = Vec::new();
            let mut has_dot = false;
            let mut saw_nonzero = false;
            let mut i = 1;
            while i < num.len() {
                match num[i] {
                    b'.' => has_dot = true,
                    b'p' | b'P' => {
                        tail = num.split_off(i);
                        break;
                    }
                    b'e' | b'E' if verb != 'x' && verb != 'X' => {
                        tail = num.split_off(i);
                        break;
                    }
                    c => {
                        if c != b'0' {
                            saw_nonzero = true;
                        }
                        if saw_nonzero {
                            digits -= 1;
                        }
                    }
                }
                i += 1;
            }
            if !has_dot {
                if num.len() == 2 && num[1] == b'0' {
                    digits -= 1;
                }
                num.push(b'.');
            }
            while digits > 0 {
                num.push(b'0');
                digits -= 1;
            }
            num.extend_from_slice(&tail);
        }
        if f.plus || num[0] != b'+' {
            if f.zero && !f.minus && f.wid_present && f.wid > num.len() {
                self.buf.push(num[0]);
                self.write_padding(f.wid - num.len());
                self.write_bytes(&num[1..]);
                return;
            }
            self.pad_bytes(&num);
            return;
        }
        self.pad_bytes(&num[1..]);
    }
}

/// The character Go prints for an integer under `%c`/`%q`: U+FFFD beyond Unicode.
fn rune_of(u: u64) -> char {
    if u > 0x10FFFF {
        '\u{FFFD}'
    } else {
        char::from_u32(u as u32).unwrap_or('\u{FFFD}')
    }
}

/// One number under one verb spec (`"%+08.3e"`, `"%#x"`), as `fmt.Sprintf(spec, x)` prints it
/// for a Go `float64`; `None` for a spec [`Flags::parse`] does not read.
pub fn sprintf_float(spec: &str, x: f64) -> Option<String> {
    let (flags, verb) = split_spec(spec)?;
    let mut f = Fmt {
        buf: Vec::new(),
        flags: if verb == 'v' { flags.for_v() } else { flags },
    };
    f.float(x, 64, verb).ok()?;
    String::from_utf8(f.buf).ok()
}

/// One number under one verb spec, as `fmt.Sprintf(spec, x)` prints a Go `int64`.
pub fn sprintf_int(spec: &str, x: i64) -> Option<String> {
    let (flags, verb) = split_spec(spec)?;
    let mut f = Fmt {
        buf: Vec::new(),
        flags: if verb == 'v' { flags.for_v() } else { flags },
    };
    f.integer(x as u64, true, verb).ok()?;
    Some(utf8::lossy(&f.buf))
}

fn split_spec(spec: &str) -> Option<(Flags, char)> {
    let verb = spec.chars().last()?;
    let flags = Flags::parse(&spec[..spec.len() - verb.len_utf8()])?;
    Some((flags, verb))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_forms() {
        assert_eq!(sprintf_float("%.2f", 12.34567).unwrap(), "12.35");
        assert_eq!(sprintf_float("%08.3f", -12.34567).unwrap(), "-012.346");
        assert_eq!(sprintf_float("%#g", 1.0).unwrap(), "1.00000");
        assert_eq!(sprintf_int("%05d", -42).unwrap(), "-0042");
        assert_eq!(sprintf_int("%#x", 255).unwrap(), "0xff");
        assert_eq!(sprintf_int("%#U", 65).unwrap(), "U+0041 'A'");
        assert_eq!(sprintf_int("%q", 0x1F600).unwrap(), "'😀'");
    }
}
