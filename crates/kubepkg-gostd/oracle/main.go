// Command oracle records what Go's standard library prints and parses, for the Rust port in
// kubepkg-gostd to be compared against (src/oracle_tests.rs). It writes:
//
//   - the golden cases, one a line: a kind, its inputs and Go's answer, tab-separated, fields
//     escaped with \\ \t \n \r and \xNN (control bytes and bytes that are not UTF-8);
//   - strconv.IsPrint as a Rust table of printable ranges (src/strconv/isprint.rs).
//
// Run it through regen.sh. The inputs are fixed (a seeded generator), so a rerun on the same Go
// gives the same files.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"math"
	"math/rand"
	"os"
	"path"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

var out *bufio.Writer

func esc(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && w == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteString(s[i : i+w])
		}
		i += w
	}
	return b.String()
}

func line(fields ...string) {
	for i, f := range fields {
		if i > 0 {
			out.WriteByte('\t')
		}
		out.WriteString(esc(f))
	}
	out.WriteByte('\n')
}

func bits(f float64) string { return fmt.Sprintf("%016x", math.Float64bits(f)) }

func errText(err error) string { return "ERR " + err.Error() }

func floats(rng *rand.Rand) (all, some []float64) {
	some = []float64{
		0, math.Copysign(0, -1), 1, -1, 0.1, 0.2, 0.3, 0.5, 1.5, 2.5, -2.5, 3.14159, 100, 1e6,
		123456, 1234567, 0.0001, 0.00001, 1e20, 1e21, 1e-6, 1e-7, 1.25e-10, 12.34567, -12.34567,
		1234.5678, 0.000123456, 9.999999, 99.995, 0.125, 1.0 / 3, 2.0 / 3, 5e-324, 2.2250738585072014e-308,
		math.MaxFloat64, math.SmallestNonzeroFloat64, 1 << 53, 1<<53 + 2, float64(math.MaxFloat32),
		1.2993909193068512e+15, 123456789.125, 1.5e300, 6.02214076e23, 9007199254740993,
		math.NaN(), math.Inf(1), math.Inf(-1), 1e-320, 4.9406564584124654e-324, 0.1 + 0.2,
	}
	all = append(all, some...)
	for range 300 {
		f := math.Float64frombits(rng.Uint64())
		if math.IsNaN(f) {
			continue
		}
		all = append(all, f)
	}
	for range 600 {
		n := rng.Int63n(1 << 40)
		k := rng.Intn(25) - 10
		all = append(all, float64(n)*math.Pow(10, float64(-k))*float64(1-2*rng.Intn(2)))
	}
	// Halves and quarters above 2^50: exact short decimals, where two shortest decimals can tie.
	for range 400 {
		n := 1<<50 + rng.Int63n(1<<53-1<<50)
		all = append(all, float64(n)+[]float64{0.5, 0.25, 0.75, 0.125}[rng.Intn(4)])
	}
	// float32 values, whose shortest 32-bit text differs from their 64-bit one.
	for range 300 {
		all = append(all, float64(math.Float32frombits(rng.Uint32())))
	}
	return all, some
}

func strconvCases(rng *rand.Rand) {
	all, some := floats(rng)
	for i, f := range all {
		for _, size := range []int{64, 32} {
			for _, c := range []byte("efg") {
				line("ftoa", bits(f), string(c), "-1", strconv.Itoa(size), strconv.FormatFloat(f, c, -1, size))
			}
		}
		if i%10 == 0 || i < len(some) {
			for _, c := range []byte("eEfgGbxX") {
				for _, p := range []int{-1, 0, 1, 2, 3, 5, 10, 17, 25} {
					line("ftoa", bits(f), string(c), strconv.Itoa(p), "64", strconv.FormatFloat(f, c, p, 64))
				}
			}
		}
		if i < len(some) {
			line("ftoa", bits(f), "f", "400", "64", strconv.FormatFloat(f, 'f', 400, 64))
			line("ftoa", bits(f), "e", "800", "64", strconv.FormatFloat(f, 'e', 800, 64))
		}
		if b, err := json.Marshal(f); err == nil {
			line("json_float", bits(f), string(b))
		} else {
			line("json_float", bits(f), "ERR")
		}
	}
	line("ftoa", bits(1), "z", "-1", "64", strconv.FormatFloat(1, 'z', -1, 64))
	line("ftoa", bits(-1), "z", "-1", "64", strconv.FormatFloat(-1, 'z', -1, 64))

	fspecs := []string{"%v", "%#v", "%e", "%E", "%f", "%F", "%g", "%G", "%b", "%x", "%X", "%.2f",
		"%8.3f", "%-8.3f", "%08.3f", "%+.3e", "% .3g", "%#g", "%#.3x", "%#.0f", "%#e", "%+08.2f",
		"% 08.2f", "%-+10.4g", "%.0e", "%.10g", "%#.4g", "%20.17g", "%.3G", "%#X", "%#b", "%+v",
		"%010v", "% f", "%#.0e"}
	for _, f := range some {
		for _, spec := range fspecs {
			line("sprintf_float", spec, bits(f), fmt.Sprintf(spec, f))
		}
	}
	ints := []int64{0, 1, -1, 7, 8, 10, 39, 42, -42, 65, 92, 255, 0x7f, 0xad, 0xe9, 0x1F600,
		0x10FFFF + 1, 0xD800, 0xFEFF, math.MaxInt64, math.MinInt64, 1 << 40, -1 << 40}
	ispecs := []string{"%d", "%v", "%#v", "%+v", "%5d", "%-5d", "%05d", "%+d", "% d", "%x", "%X",
		"%#x", "%#X", "%o", "%#o", "%O", "%b", "%#b", "%c", "%q", "%+q", "%#q", "%U", "%#U",
		"%.3d", "%.0d", "%8.3x", "%08d", "%-08d", "%+05d", "% 05x", "%#08x", "%10c", "%-6q",
		"%#.6U", "%08U", "%.0x", "%5.0d"}
	for _, n := range ints {
		for _, spec := range ispecs {
			line("sprintf_int", spec, strconv.FormatInt(n, 10), fmt.Sprintf(spec, n))
		}
	}

	strs := []string{"", "abc", "a\"b\n", "tab\there", "back\\slash", "\a\b\f\n\r\t\v", "\x00\x01\x1f\x7f",
		"é", "日本語", "😀", "\u00ad", "\u200b", "\u2028", "\ufeff", "\ufffd", "\u0300a", "a\u0301",
		"\x80", "\xff", "a\xe2\x82b", "\xed\xa0\x80", "\u00a0", "\u3000", "\ue000", "\U000f0000",
		"\U0001f9ff", "\u0378", "\u08a0", "\U0010ffff", "`", "a`b", "'", "\u0085", "\u061c",
		"\U000e0001", "\u1680", "\u180e", "\U0001fa70", "\u30fc", "ß", "\u2060"}
	for _, s := range strs {
		line("quote", s, strconv.Quote(s), strconv.QuoteToASCII(s), strconv.FormatBool(strconv.CanBackquote(s)))
	}
	for r := rune(0); r <= 0x10FFFF+2; r += 389 {
		line("quote_rune", strconv.Itoa(int(r)), strconv.QuoteRune(r), strconv.QuoteRuneToASCII(r))
	}
	for _, r := range []rune{0, '\'', '"', '\\', '\n', 0x7f, 0xad, 0xd800, 0xdfff, 0xfffd, 0x110000, -1} {
		line("quote_rune", strconv.Itoa(int(r)), strconv.QuoteRune(r), strconv.QuoteRuneToASCII(r))
	}

	intTexts := []string{"", "0", "-0", "+0", "1", "-1", "+5", "017", "08", "0x1F", "0X1f", "0o17",
		"0b101", "-0b101", "0x", "0b", "0_1", "1_000", "1__0", "_1", "1_", "0x_1f", "0x1_f", "00",
		"9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
		"18446744073709551615", "18446744073709551616", "99999999999999999999x", "abc", "12a",
		"--1", "+-1", " 1", "1 ", "0xffffffffffffffff", "0x10000000000000000", "z", "Z", "-", "+",
		"255", "256", "-128", "-129", "127", "128", "4294967295", "4294967296", "1e3", "1.0"}
	for _, s := range intTexts {
		for _, base := range []int{0, 10, 16, 2, 36, 1, 37} {
			for _, size := range []int{64, 32, 8, 0, 65} {
				if v, err := strconv.ParseInt(s, base, size); err == nil {
					line("parse_int", s, strconv.Itoa(base), strconv.Itoa(size), strconv.FormatInt(v, 10))
				} else {
					line("parse_int", s, strconv.Itoa(base), strconv.Itoa(size), errText(err))
				}
				if v, err := strconv.ParseUint(s, base, size); err == nil {
					line("parse_uint", s, strconv.Itoa(base), strconv.Itoa(size), strconv.FormatUint(v, 10))
				} else {
					line("parse_uint", s, strconv.Itoa(base), strconv.Itoa(size), errText(err))
				}
			}
		}
		if v, err := strconv.Atoi(s); err == nil {
			line("atoi", s, strconv.Itoa(v))
		} else {
			line("atoi", s, errText(err))
		}
	}

	floatTexts := []string{"", "0", "-0", "+0", "1", "1.", ".5", ".", "-.5", "1e5", "1E5", "1e+5",
		"1e-5", "1e", "1e+", "e5", "1.5e300", "1e400", "-1e400", "1e-400", "inf", "+inf", "-inf",
		"Inf", "INF", "infinity", "-Infinity", "infin", "nan", "NaN", "+nan", "-nan", "nana",
		"1_000.5", "1_000", "_1", "1_", "1__0", "1.2.3", "1e5.5", "0x1p-2", "0x10", " 1", "1 ",
		"3.4028235e38", "3.5e38", "1.7976931348623157e308", "1.7976931348623159e308",
		"4.9406564584124654e-324", "2.4703282292062327e-324", "123456789012345678901234567890",
		"0.1", "0.30000000000000004", "1e1_0", "1e_10", "00.5", "+.e1", "12a", "١"}
	for _, s := range floatTexts {
		for _, size := range []int{64, 32} {
			if v, err := strconv.ParseFloat(s, size); err == nil {
				line("parse_float", s, strconv.Itoa(size), bits(v))
			} else {
				line("parse_float", s, strconv.Itoa(size), errText(err))
			}
		}
	}
}

func durationCases(rng *rand.Rand) {
	ds := []int64{0, 1, 999, 1000, 1500, 999999, 1000000, 1500000, 999999999, 1e9, 1500000000,
		59e9, 60e9, 61500000000, 3600e9, 3723e9, 86400e9, 90061001001001, math.MaxInt64,
		math.MinInt64, -1, -1500, -3723e9, 100 * 365 * 86400e9}
	for range 200 {
		ds = append(ds, rng.Int63n(1<<uint(rng.Intn(62)+1))*int64(1-2*rng.Intn(2)))
	}
	for _, d := range ds {
		line("duration_string", strconv.FormatInt(d, 10), time.Duration(d).String())
	}
	texts := []string{"", "0", "-0", "+0", "1", "1s", "1.5h", "-1m30s", "+5m", "1h2m3.5s", "300ms",
		"1us", "1µs", "1μs", "2ns", ".5s", "5.s", ".s", "1.5.5s", "5x", "5 s", " 5s", "1e3s",
		"9223372036854775807ns", "9223372036854775808ns", "-9223372036854775808ns",
		"-9223372036854775809ns", "2562047h47m16.854775807s", "2562047h47m16.854775808s",
		"2562048h", "1.0000000000000000000000001s", "0.123456789012345678901234s",
		"100000000000000000000ns", "1h-1m", "1hh", "1m1", "h", "-", "+", "1d", "1é", "1\x00s",
		"3.000000001s", "0.1ns", "1.9999999999ns", "5ms3us", "9223372036.854775807s",
		"9223372036.854775808s", "15240h", "1.5µs", "1.0h", "00001s", "1\"s"}
	for _, s := range texts {
		if d, err := time.ParseDuration(s); err == nil {
			line("parse_duration", s, strconv.FormatInt(int64(d), 10))
		} else {
			line("parse_duration", s, errText(err))
		}
	}
	for _, d := range []int64{0, 1499999999, 1500000000, -1500000000, -1499999999, 2500000000,
		math.MaxInt64, math.MinInt64, 61e9, 59999999999, 7} {
		for _, m := range []int64{0, -1, 1, 1e9, 60e9, 3, 1e6} {
			line("round", strconv.FormatInt(d, 10), strconv.FormatInt(m, 10),
				strconv.FormatInt(int64(time.Duration(d).Round(time.Duration(m))), 10))
		}
	}
}

var zones = []string{"UTC", "America/New_York", "Europe/Berlin", "Asia/Kolkata", "Asia/Kathmandu",
	"Australia/Lord_Howe", "Asia/Dubai", "America/St_Johns", "Pacific/Chatham"}

func timeCases(rng *rand.Rand) {
	secs := []int64{0, -1, 1136214245, 1136239445, 951782400, 951868799, 1709164800, 1710054000,
		1710050400, 1730613600, 1730610000, -62135596800, 253402300799, -2208988800, 4102444800,
		1700000000, 946684799, 1234567890, -86400 * 365 * 100, 1583020800, -12219292800}
	for range 12 {
		secs = append(secs, rng.Int63n(253402300799+62135596800)-62135596800)
	}
	nanos := []int{0, 500000000, 123456789, 1, 100, 999999999}
	layouts := []string{time.Layout, time.ANSIC, time.UnixDate, time.RubyDate, time.RFC822,
		time.RFC822Z, time.RFC850, time.RFC1123, time.RFC1123Z, time.RFC3339, time.RFC3339Nano,
		time.Kitchen, time.Stamp, time.StampMilli, time.StampMicro, time.StampNano, time.DateTime,
		time.DateOnly, time.TimeOnly, "2006-01-02 15:04:05.999999999 -0700 MST",
		"Monday January _2 __2 002 3 03 4 5 PM pm", "06 1 2 15 04 05 .000 ,000 .999 ,999999",
		"-07 -0700 -07:00 -070000 -07:00:00 Z07 Z0700 Z07:00 Z070000 Z07:00:00 MST",
		"Mon Jan 2", "_2006 2006_01", "01/02/06 03:04:05.0000 PM", "20060102T150405Z0700",
		".9 .99 .99999999 .0000000000", "no elements", "2006-01-02T15:04:05.00000Z07:00", "January",
		"J Ja Jan Janu", "1504", "3PM", "15:04:05,000"}
	for i, s := range secs {
		for j, z := range zones {
			if (i+j)%3 != 0 && z != "UTC" {
				continue
			}
			loc, err := time.LoadLocation(z)
			if err != nil {
				panic(err)
			}
			n := nanos[(i+j)%len(nanos)]
			t := time.Unix(s, int64(n)).In(loc)
			line("time_string", strconv.FormatInt(s, 10), strconv.Itoa(n), z, t.String())
			for _, l := range layouts {
				line("format", strconv.FormatInt(s, 10), strconv.Itoa(n), z, l, t.Format(l))
			}
			y, mo, d := t.Date()
			h, mi, se := t.Clock()
			line("fields", strconv.FormatInt(s, 10), z, fmt.Sprintf("%d %d %d %d %d %d %d %d",
				y, int(mo), d, h, mi, se, t.YearDay(), int(t.Weekday())))
		}
	}
	for days := int64(-800000); days < 800000; days += 997 {
		t := time.Unix(days*86400, 0).UTC()
		y, m, d := t.Date()
		line("civil", strconv.FormatInt(days, 10), fmt.Sprintf("%d %d %d %d %d", y, int(m), d, t.YearDay(), int(t.Weekday())))
	}
	for _, z := range []string{"", "UTC", "Local", "America/New_York", "america/new_york", "Nowhere/City",
		"../etc/passwd", "/etc/localtime", "EST", "Etc/GMT+5", "US/Pacific"} {
		if z == "Local" {
			continue
		}
		_, err := time.LoadLocation(z)
		line("load_location", z, strconv.FormatBool(err == nil))
	}
	parses := [][2]string{
		{time.RFC3339, "2006-01-02T15:04:05Z"},
		{time.RFC3339, "2006-01-02T15:04:05+07:00"},
		{time.RFC3339, "2006-01-02T15:04:05-05:00"},
		{time.RFC3339, "2024-07-01T12:00:00+02:00"},
		{time.RFC3339, "2024-01-01T12:00:00+01:00"},
		{time.RFC3339, "2006-01-02T15:04:05"},
		{time.RFC3339Nano, "2006-01-02T15:04:05.123456789Z"},
		{time.RFC3339, "2006-01-02T15:04:05.5Z"},
		{"2006-01-02", "2017-12-31"},
		{"2006-01-02", "2017-13-31"},
		{"2006-01-02", "2017-02-29"},
		{"2006-01-02", "2016-02-29"},
		{"2006-01-02", "2017-02-30x"},
		{"2006-01-02", "17-02-03"},
		{"2006-01-02", "2017-1-3"},
		{"2006-1-2", "2017-1-3"},
		{"2006-01-02 15:04", "2024-03-10 02:30"},
		{"2006-01-02 15:04", "2024-11-03 01:30"},
		{"2006-01-02 15:04", "2024-03-31 02:30"},
		{"2006-01-02 15:04", "2024-10-27 02:30"},
		{"2006-01-02 15:04:05", "2024-02-30 10:00:00"},
		{"2006-01-02 15:04:05", "2024-02-10 24:00:00"},
		{"2006-01-02 15:04:05", "2024-02-10 23:60:00"},
		{"2006-01-02 15:04:05", "2024-02-10 23:59:60"},
		{time.Kitchen, "3:04PM"},
		{time.Kitchen, "12:00AM"},
		{time.Kitchen, "12:00PM"},
		{time.Kitchen, "13:00PM"},
		{time.Kitchen, "3:04XM"},
		{time.ANSIC, "Mon Jan  2 15:04:05 2006"},
		{time.ANSIC, "Mon Jan 2 15:04:05 2006"},
		{time.UnixDate, "Mon Jan  2 15:04:05 MST 2006"},
		{time.UnixDate, "Mon Jan  2 15:04:05 EST 2006"},
		{time.UnixDate, "Mon Jul  2 15:04:05 EDT 2006"},
		{time.UnixDate, "Mon Jul  2 15:04:05 CEST 2006"},
		{time.UnixDate, "Mon Jan  2 15:04:05 UTC 2006"},
		{time.UnixDate, "Mon Jan  2 15:04:05 XY 2006"},
		{time.RFC1123Z, "Mon, 02 Jan 2006 15:04:05 -0700"},
		{time.RFC1123, "Mon, 02 Jan 2006 15:04:05 GMT"},
		{time.RFC822Z, "02 Jan 06 15:04 +0530"},
		{"Jan _2 2006", "Feb  3 2013"},
		{"January 2, 2006", "february 3, 2013"},
		{"Monday, 2006", "Friday, 2013"},
		{"Monday, 2006", "Funday, 2013"},
		{"2006 002", "2013 045"},
		{"2006 002", "2013 366"},
		{"2006 002", "2012 366"},
		{"2006 __2", "2013  45"},
		{"2006-01-02 002", "2013-02-14 045"},
		{"2006-01-02 002", "2013-02-15 045"},
		{"15:04:05.000", "10:11:12.345"},
		{"15:04:05.000", "10:11:12.34"},
		{"15:04:05.999", "10:11:12"},
		{"15:04:05.999", "10:11:12.3456"},
		{"15:04:05", "10:11:12.3456"},
		{"15:04:05,000", "10:11:12,345"},
		{"2006-01-02T15:04:05Z07:00", "2006-01-02T15:04:05+0700"},
		{"-0700", "+01"},
		{"Z07", "Z"},
		{"Z07", "+05"},
		{"-07:00:00", "+01:02:03"},
		{"2006", "abcd"},
		{"2006", "12345"},
		{"06", "69"},
		{"06", "68"},
		{"2006  01", "2006 01"},
		{"2006 01", "2006    01"},
		{"PM", "pm"},
		{"pm", "pm"},
		{"MST", "ABCDEF"},
		{"MST", "GMT+5"},
		{"MST", "GMT-11"},
		{"MST 2006", "GMT 2006"},
		{"MST", "ChST"},
		{"MST", "CEST"},
		{"MST", "WITA"},
		{"MST", "ABCDT"},
		{"MST", "+03"},
		{"MST", "ABcd"},
		{"01", "00"},
		{"1", "13"},
		{"Jan", "Foo"},
		{"", ""},
		{"", "x"},
		{"2006-01-02", "2006-01-02 extra"},
		{"2006-01-02", "é"},
		{"2006-01-02 MST", "2024-06-01 IST"},
		{"2006-01-02 MST", "2024-06-01 +0530"},
	}
	for _, p := range parses {
		for _, z := range []string{"UTC", "America/New_York", "Europe/Berlin", "Asia/Kolkata"} {
			loc, _ := time.LoadLocation(z)
			t, err := time.ParseInLocation(p[0], p[1], loc)
			if err != nil {
				line("parse", p[0], p[1], z, errText(err))
				continue
			}
			name, off := t.Zone()
			line("parse", p[0], p[1], z, fmt.Sprintf("%d %d %d %s", t.Unix(), t.Nanosecond(), off, name))
		}
	}
}

func isprintTable(path string) {
	var b strings.Builder
	b.WriteString("// Generated by oracle/regen.sh from Go's strconv.IsPrint (" + strings.TrimPrefix(goVersion(), "go") + "); do not edit.\n\n")
	b.WriteString("/// The ranges of characters Go's `strconv.IsPrint` accepts, inclusive, in order.\n")
	b.WriteString("#[rustfmt::skip]\npub(super) const PRINT: &[(u32, u32)] = &[\n")
	n := 0
	for r := rune(0); r <= utf8.MaxRune; {
		if !strconv.IsPrint(r) {
			r++
			continue
		}
		lo := r
		for r <= utf8.MaxRune && strconv.IsPrint(r) {
			r++
		}
		fmt.Fprintf(&b, "    (0x%04x, 0x%04x),\n", lo, r-1)
		n++
	}
	b.WriteString("];\n")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		panic(err)
	}
}

var goVersion = func() string { return strings.Fields(fmt.Sprint(runtimeVersion()))[0] }

func main() {
	golden := flag.String("golden", "", "the golden cases file to write")
	isprint := flag.String("isprint", "", "the Rust IsPrint table to write")
	flag.Parse()
	os.Setenv("TZ", "UTC")
	if *isprint != "" {
		isprintTable(*isprint)
	}
	if *golden == "" {
		return
	}
	f, err := os.Create(*golden)
	if err != nil {
		panic(err)
	}
	out = bufio.NewWriter(f)
	fmt.Fprintf(out, "# Go standard library cases recorded by oracle/regen.sh with %s; do not edit.\n", goVersion())
	strconvCases(rand.New(rand.NewSource(1)))
	durationCases(rand.New(rand.NewSource(2)))
	timeCases(rand.New(rand.NewSource(3)))
	slogCases()
	matchCases(rand.New(rand.NewSource(4)))
	jsonFieldCases()
	if err := out.Flush(); err != nil {
		panic(err)
	}
	if err := f.Close(); err != nil {
		panic(err)
	}
}

// slogCases: log/slog's TextHandler lines as Helm 4's CLI logger writes them (its ReplaceAttr
// drops the time): a message and one attribute, for texts that need quoting and texts that
// do not (space, '=', '"', backslash, control bytes, non-printable and space runes, invalid
// UTF-8, the empty string).
func slogCases() {
	texts := []string{"", "plain", "two words", "k=v", "a\"b", "back\\slash", "tab\there", "nl\n",
		"\x00\x7f", "é", "日本", "\u00a0", "\u2028", "\u00ad", "a,b:c/d.e-f_g", "(false)",
		"warning: destination for a.b is a table. Ignoring non-table value (false)", "map[a:1]", "-", "#x"}
	for _, t := range texts {
		for _, level := range []slog.Level{slog.LevelInfo, slog.LevelWarn} {
			var buf bytes.Buffer
			h := slog.NewTextHandler(&buf, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
				if a.Key == slog.TimeKey {
					return slog.Attr{}
				}
				return a
			}})
			slog.New(h).Log(context.Background(), level, t, "key", t)
			line("slog", level.String(), t, strings.TrimSuffix(buf.String(), "\n"))
		}
	}
}

// matchCases: path.Match (filepath.Match on Unix), which .helmignore and --show-only use: the
// patterns of Helm's own tests and .helmignore files, then seeded random patterns and names
// over an alphabet of the characters that mean something to it (stars, classes, ranges,
// negation, escapes, slashes, a two-byte rune), bad patterns included.
func matchCases(rng *rand.Rand) {
	fixed := [][2]string{
		{"abc", "abc"}, {"*", "abc"}, {"*c", "abc"}, {"a*", "a"}, {"a*", "abc"}, {"a*", "ab/c"},
		{"a*/b", "abc/b"}, {"a*/b", "a/c/b"}, {"a*b*c*d*e*/f", "axbxcxdxe/f"},
		{"a*b*c*d*e*/f", "axbxcxdxexxx/f"}, {"a*b*c*d*e*/f", "axbxcxdxe/xxx/f"},
		{"a*b*c*d*e*/f", "axbxcxdxexxx/fff"}, {"a*b?c*x", "abxbbxdbxebxczzx"},
		{"a*b?c*x", "abxbbxdbxebxczzy"}, {"ab[c]", "abc"}, {"ab[b-d]", "abc"}, {"ab[e-g]", "abc"},
		{"ab[^c]", "abc"}, {"ab[^b-d]", "abc"}, {"ab[^e-g]", "abc"}, {"a\\*b", "a*b"},
		{"a\\*b", "ab"}, {"a?b", "a☺b"}, {"a[^a]b", "a☺b"}, {"a???b", "a☺b"}, {"a[^a][^a][^a]b", "a☺b"},
		{"[a-ζ]*", "α"}, {"*[a-ζ]", "A"}, {"a?b", "a/b"}, {"a*b", "a/b"}, {"[\\]a]", "]"},
		{"[\\-]", "-"}, {"[x\\-a]", "x"}, {"[x\\-a]", "-"}, {"[x\\-a]", "a"}, {"[\\-x]", "\\"},
		{"[\\-x]", "-"}, {"[\\-x]", "x"}, {"[\\-x]", "a"}, {"[]a]", "]"}, {"[-]", "-"},
		{"[x-]", "x"}, {"[x-]", "-"}, {"[x-]", "z"}, {"[-x]", "x"}, {"[-x]", "-"}, {"[-x]", "a"},
		{"\\", "a"}, {"[a-b-c]", "a"}, {"[", "a"}, {"[^", "a"}, {"[^bc", "a"}, {"a[", "a"},
		{"a[", "ab"}, {"a[", "x"}, {"a/b[", "x"}, {"*x", "xxx"}, {"a[^x]b", "a/b"}, {"a[/]b", "a/b"},
		{"a*[^x]*", "ab/c"}, {"templates/.?*", "templates/.hidden"}, {"templates/.?*", "templates/."},
		{"templates/.?*", "templates/a"}, {".DS_Store", ".DS_Store"}, {"*.swp", "a.swp"},
		{"*.swp", "d/a.swp"}, {"*~", "values.yaml~"}, {"*.tmproj", "x.tmproj"}, {"", ""}, {"", "a"},
		{"*", ""}, {"**", "a/b"}, {"a/**", "a/b"}, {"*/*", "a/b"}, {"ab[", "ab"}, {"a*[", "ab"},
		{"[a-", "a"}, {"[a-]", "a"}, {"[\\", "a"}, {"\\a", "a"}, {"é*", "éé"}, {"*é", "xé"},
	}
	for _, c := range fixed {
		matchLine(c[0], c[1])
	}
	pattern := []string{"a", "b", "/", "*", "*", "?", "[", "]", "^", "-", "\\", ".", "é", "[a-c]", "[^b]"}
	name := []string{"a", "b", "c", "/", ".", "-", "é", "^", "]"}
	pick := func(alphabet []string, max int) string {
		var b strings.Builder
		for n := rng.Intn(max + 1); n > 0; n-- {
			b.WriteString(alphabet[rng.Intn(len(alphabet))])
		}
		return b.String()
	}
	for range 3000 {
		matchLine(pick(pattern, 7), pick(name, 6))
	}
}

func matchLine(pattern, name string) {
	ok, err := path.Match(pattern, name)
	if err != nil {
		line("match", pattern, name, errText(err))
		return
	}
	line("match", pattern, name, strconv.FormatBool(ok))
}

// jsonFieldCases: which key of a JSON object encoding/json leaves in each field of a struct,
// for every ordered pair of keys from a set that name the same fields in other cases and
// foldings (the Kelvin sign, the long s, a dotless i that does not fold) and a few triples.
func jsonFieldCases() {
	keys := []string{"kind", "Kind", "KIND", "kinD", "\u212aind", "k\u0131nd", "kinds", "apiVersion",
		"apiversion", "APIVERSION", "name", "NAME", "Name", "annotations", "annotation\u017f",
		"ANNOTATIONS", "annotation"}
	for _, a := range keys {
		for _, b := range keys {
			if a != b {
				jsonFieldLine([]string{a, b})
			}
		}
	}
	jsonFieldLine([]string{"KIND", "Kind", "kind"})
	jsonFieldLine([]string{"kind", "KIND", "\u212aind"})
	jsonFieldLine([]string{"Name", "name", "NAME"})
}

func jsonFieldLine(keys []string) {
	var h struct {
		APIVersion  string `json:"apiVersion"`
		Kind        string `json:"kind"`
		Name        string `json:"name"`
		Annotations string `json:"annotations"`
	}
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kj, err := json.Marshal(k)
		if err != nil {
			panic(err)
		}
		fmt.Fprintf(&b, "%s:\"%d\"", kj, i)
	}
	b.WriteByte('}')
	if err := json.Unmarshal([]byte(b.String()), &h); err != nil {
		panic(err)
	}
	line("json_field", strings.Join(keys, "\n"),
		fmt.Sprintf("apiVersion=%s kind=%s name=%s annotations=%s", h.APIVersion, h.Kind, h.Name, h.Annotations))
}
