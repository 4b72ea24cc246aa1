// Case inputs: Sprig's and Helm's functions, each with typical and awkward arguments.
package main

import (
	"fmt"
	"strings"
)

func genStrings(g *corpusGen) {
	const s = "strings"
	args := []string{"\"hello world\"", ".Values.uni", "\"\"", ".Values.spaced", ".Values.num", ".Values.nul", "\"HeLLo_wOrld-foo bar\"", "\"ab1-CD2_ef3\""}
	for _, fn := range []string{"upper", "lower", "title", "untitle", "trim", "nospace", "initials", "swapcase", "snakecase", "camelcase", "kebabcase", "quote", "squote", "toString", "plural \"one\" \"many\""} {
		for _, a := range args {
			g.t(s, fmt.Sprintf("{{ %s %s }}", fn, a))
		}
	}
	g.t(s,
		"{{ trunc 5 \"hello world\" }}", "{{ trunc -5 \"hello world\" }}", "{{ trunc 50 \"hi\" }}", "{{ trunc 3 .Values.uni }}", "{{ trunc 0 \"x\" }}",
		"{{ abbrev 5 \"hello world\" }}", "{{ abbrev 3 \"hello\" }}", "{{ abbrev 20 \"short\" }}", "{{ abbrevboth 5 10 \"1234 5678 9123\" }}",
		"{{ substr 0 3 \"hello\" }}", "{{ substr 1 -1 \"hello\" }}", "{{ substr -1 2 \"hello\" }}", "{{ substr 3 1 \"hello\" }}", "{{ substr 0 10 \"hi\" }}", "{{ substr 0 2 .Values.uni }}",
		"{{ repeat 3 \"ab\" }}", "{{ repeat 0 \"ab\" }}", "{{ repeat -1 \"ab\" }}",
		"{{ trimAll \"$\" \"$$5.00$\" }}", "{{ trimall \"-\" \"--x--\" }}", "{{ trimSuffix \".txt\" \"a.txt\" }}", "{{ trimPrefix \"pre\" \"prefix\" }}", "{{ trimSuffix \"x\" \"a\" }}",
		"{{ contains \"ell\" \"hello\" }}", "{{ contains \"\" \"x\" }}", "{{ hasPrefix \"he\" \"hello\" }}", "{{ hasSuffix \"lo\" \"hello\" }}", "{{ hasPrefix \"x\" .Values.num }}",
		"{{ cat \"a\" 1 .Values.nul \"b\" .Values.list }}", "{{ cat }}", "{{ cat \"\" \"\" }}",
		"{{ indent 2 \"a\\nb\" }}", "{{ nindent 4 \"a\\n\\nb\" }}", "{{ indent 0 \"x\" }}", "{{ indent -2 \"x\" }}", "{{ .Values.multi | indent 3 }}", "{{ nindent 2 \"\" }}",
		"{{ replace \"l\" \"L\" \"hello\" }}", "{{ replace \"\" \"-\" \"abc\" }}", "{{ \"a.b.c\" | replace \".\" \"/\" }}",
		"{{ plural \"one\" \"many\" 1 }}", "{{ plural \"one\" \"many\" 0 }}", "{{ plural \"one\" \"many\" 2 }}",
		"{{ wrap 5 \"The quick brown fox jumps\" }}", "{{ wrapWith 5 \"\\t\" \"The quick brown fox\" }}", "{{ wrap 80 \"short\" }}",
		"{{ split \"$\" \"foo$bar$baz\" }}", "{{ (split \"$\" \"foo$bar$baz\")._1 }}", "{{ splitList \",\" \"a,b,,c\" }}", "{{ splitList \"\" \"abc\" }}", "{{ splitn \"$\" 2 \"foo$bar$baz\" }}",
		"{{ splitList \",\" \"\" }}", "{{ toStrings (list 1 2.5 \"x\" nil true) }}", "{{ join \"-\" (list 1 \"a\" 2.5 nil) }}", "{{ join \",\" .Values.list }}", "{{ join \",\" \"abc\" }}", "{{ join \",\" .Values.nul }}",
		"{{ sortAlpha (list \"b\" \"A\" \"a\" 10 2) }}", "{{ sortAlpha .Values.list }}", "{{ sortAlpha \"x\" }}",
		"{{ \"hello\" | upper | quote }}", "{{ quote \"a\" 1 nil \"b\" }}", "{{ squote \"it's\" }}", "{{ quote \"with \\\"quotes\\\"\" }}",
		"{{ hello }}", "{{ toString 1.5 }}", "{{ toString .Values.list }}", "{{ toString (list 1 2) }}", "{{ toString .Values.map }}", "{{ toString nil }}",
		"{{ title \"hello wOrLD élan\" }}", "{{ upper \"straße\" }}", "{{ lower \"İSTANBUL\" }}", "{{ initials \"first second  third\" }}",
		"{{ seq 5 }}", "{{ seq 2 5 }}", "{{ seq 5 2 }}", "{{ seq 0 2 10 }}", "{{ seq 10 -3 1 }}", "{{ seq }}", "{{ seq 1 0 1 }}",
		"{{ ternary \"yes\" \"no\" true }}", "{{ ternary \"yes\" \"no\" false }}", "{{ true | ternary \"a\" \"b\" }}",
	)
	g.shape(s, "randAlphaNum", "{{ randAlphaNum 16 }}", "shape:regex:[A-Za-z0-9]{16}")
	g.shape(s, "randAlpha", "{{ randAlpha 12 }}", "shape:regex:[A-Za-z]{12}")
	g.shape(s, "randNumeric", "{{ randNumeric 8 }}", "shape:regex:[0-9]{8}")
	g.shape(s, "randAscii", "{{ randAscii 20 | len }}", "shape:regex:20")
	g.shape(s, "randAscii_alphabet", "{{ randAscii 30 }}", "shape:regex:[ -~]{30}")
	g.shape(s, "randAlphaNum_zero", "{{ randAlphaNum 0 }}|", "shape:regex:\\|")
	g.shape(s, "shuffle", "{{ shuffle \"aabbc\" | len }}{{ if eq (shuffle \"aaa\") \"aaa\" }}ok{{ end }}", "shape:regex:5ok")
	g.shape(s, "shuffle_letters", "{{ shuffle \"abcdef\" }}", "shape:regex:[a-f]{6}")
}

func genLists(g *corpusGen) {
	const l = "lists"
	g.t(l,
		"{{ list }}", "{{ list 1 \"a\" 2.5 nil true }}", "{{ tuple 1 2 }}", "{{ list .Values.list .Values.map }}",
		"{{ first .Values.list }}", "{{ first .Values.emptylist }}", "{{ first nil }}", "{{ last .Values.list }}", "{{ rest .Values.list }}", "{{ initial .Values.list }}",
		"{{ rest .Values.emptylist }}", "{{ initial .Values.emptylist }}", "{{ last .Values.emptylist }}",
		"{{ append .Values.list \"d\" }}", "{{ push .Values.list \"d\" }}", "{{ prepend .Values.list \"z\" }}", "{{ append nil 1 }}", "{{ append \"x\" 1 }}",
		"{{ mustAppend \"x\" 1 }}", "{{ mustPush .Values.list 1 }}", "{{ mustPrepend .Values.nul 1 }}",
		"{{ concat .Values.list .Values.nums (list 9) }}", "{{ concat }}", "{{ concat .Values.list \"x\" }}",
		"{{ reverse .Values.list }}", "{{ reverse .Values.emptylist }}", "{{ uniq (list 1 2 1 \"a\" \"a\" 2.0) }}", "{{ uniq .Values.mixed }}",
		"{{ without .Values.list \"b\" }}", "{{ without (list 1 2 3 1) 1 3 }}", "{{ has \"b\" .Values.list }}", "{{ has 4 .Values.list }}", "{{ has 1.0 (list 1) }}",
		"{{ has \"a\" nil }}", "{{ mustHas \"a\" \"abc\" }}", "{{ has \"a\" \"abc\" }}",
		"{{ compact (list 1 \"\" 0 nil \"a\" false (list)) }}", "{{ mustCompact .Values.mixed }}",
		"{{ slice .Values.list 1 }}", "{{ slice .Values.list 1 2 }}", "{{ slice .Values.list }}", "{{ slice .Values.list 0 5 }}", "{{ mustSlice .Values.list 2 1 }}",
		"{{ slice \"hello\" 1 3 }}", "{{ slice .Values.nul 0 }}",
		"{{ chunk 2 (list 1 2 3 4 5) }}", "{{ chunk 3 .Values.emptylist }}", "{{ mustChunk 0 (list 1) }}",
		"{{ until 5 }}", "{{ until 0 }}", "{{ until -3 }}", "{{ untilStep 0 10 3 }}", "{{ untilStep 10 0 -4 }}", "{{ untilStep 0 10 0 }}", "{{ untilStep 1 3 -1 }}",
		"{{ mustFirst .Values.list }}", "{{ mustLast .Values.nums }}", "{{ mustRest .Values.nums }}", "{{ mustInitial .Values.nums }}", "{{ mustReverse .Values.nums }}",
		"{{ mustUniq (list 1 1) }}", "{{ mustWithout .Values.list \"a\" }}", "{{ mustHas 1 .Values.nums }}",
		"{{ first \"abc\" }}", "{{ mustFirst \"abc\" }}", "{{ last 3 }}", "{{ reverse \"abc\" }}", "{{ mustReverse 3 }}",
		"{{ len (list 1 2 3) }}", "{{ index (list 1 2 3) 2 }}", "{{ printf \"%T\" (list) }}", "{{ printf \"%T\" (append .Values.list 1) }}",
		"{{ first (splitList \",\" \"x,y\") }}", "{{ typeOf (rest (splitList \",\" \"x,y\")) }}", "{{ append (splitList \",\" \"x,y\") 3 }}",
		"{{ join \"+\" (reverse (until 4)) }}", "{{ sortAlpha .Values.nums }}",
	)
}

func genDicts(g *corpusGen) {
	const d = "dicts"
	g.t(d,
		"{{ dict }}", "{{ dict \"a\" 1 \"b\" \"two\" }}", "{{ dict \"a\" }}", "{{ dict 1 2 }}", "{{ dict \"a\" 1 \"a\" 2 }}", "{{ dict nil 1 }}",
		"{{ get .Values.map \"a\" }}", "{{ get .Values.map \"zz\" }}", "{{ $d := dict \"x\" 1 }}{{ set $d \"y\" 2 }}", "{{ $d := dict \"x\" 1 }}{{ $_ := unset $d \"x\" }}{{ $d }}",
		"{{ hasKey .Values.map \"a\" }}", "{{ hasKey .Values.map \"q\" }}", "{{ hasKey .Values.nul \"a\" }}",
		"{{ pluck \"a\" .Values.map (dict \"a\" 9) (dict \"b\" 1) }}", "{{ pluck \"a\" }}",
		"{{ keys (dict \"only\" 1) }}", "{{ keys .Values.map (dict \"z\" 1 \"a\" 2) | sortAlpha }}", "{{ keys .Values.emptymap }}", "{{ values .Values.map | len }}",
		"{{ values (dict \"a\" 1) }}", "{{ pick .Values.map \"a\" \"c\" \"zz\" }}", "{{ omit .Values.map \"a\" \"c\" }}",
		"{{ dig \"c\" \"d\" \"def\" .Values.map }}", "{{ dig \"c\" \"zz\" \"def\" .Values.map }}", "{{ dig \"a\" \"b\" \"def\" .Values.map }}", "{{ dig \"x\" \"def\" .Values.emptymap }}",
		"{{ dig \"a\" \"def\" .Values.list }}",
		"{{ merge (dict \"a\" 1 \"n\" (dict \"x\" 1)) (dict \"a\" 2 \"b\" 3 \"n\" (dict \"y\" 2)) }}", "{{ mergeOverwrite (dict \"a\" 1 \"n\" (dict \"x\" 1)) (dict \"a\" 2 \"n\" (dict \"x\" 3)) }}",
		"{{ $d := dict \"a\" 1 }}{{ $_ := merge $d (dict \"b\" 2) }}{{ $d }}", "{{ mustMerge (dict) .Values.map }}", "{{ mustMergeOverwrite (dict \"a\" (list 1)) (dict \"a\" (list 2 3)) }}",
		"{{ merge (dict \"a\" nil) (dict \"a\" 5) }}", "{{ mergeOverwrite (dict \"a\" 5) (dict \"a\" nil) }}", "{{ mergeOverwrite (dict \"a\" 5) (dict \"a\" \"\") }}",
		"{{ merge (dict \"a\" \"\") (dict \"a\" 5) }}", "{{ merge (dict \"a\" false) (dict \"a\" true) }}", "{{ mergeOverwrite (dict \"a\" true) (dict \"a\" false) }}",
		"{{ $c := deepCopy .Values.map }}{{ $_ := set $c \"a\" 100 }}{{ .Values.map.a }} {{ $c.a }}", "{{ deepCopy .Values.list }}", "{{ mustDeepCopy nil }}", "{{ deepCopy nil }}",
		"{{ $d := dict }}{{ $_ := set $d \"k\" (list 1) }}{{ toJson $d }}", "{{ $_ := set .Values \"added\" 1 }}{{ .Values.added }}",
		"{{ $d := .Values.map }}{{ $_ := set $d \"new\" 1 }}{{ .Values.map.new }}", "{{ (dict \"k\" \"v\").k }}", "{{ (dict \"k\" \"v\").missing }}",
		"{{ get (dict \"a\" nil) \"a\" }}", "{{ printf \"%T\" (dict) }}", "{{ range $k, $v := dict \"z\" 1 \"a\" 2 \"m\" 3 }}{{ $k }}{{ end }}",
		"{{ unset (dict \"a\" 1) \"b\" }}", "{{ set (dict) \"a\" nil }}", "{{ keys (dict \"b\" 1 \"a\" 2) | sortAlpha }}",
	)
}

func genMath(g *corpusGen) {
	const m = "math"
	ops := []string{"1", "2.7", "-3", "\"4\"", "\"x\"", ".Values.num", ".Values.flt", "nil", ".Values.huge", "true"}
	for _, fn := range []string{"add", "sub", "mul", "div", "mod", "max", "min", "addf", "subf", "mulf", "divf", "maxf", "minf"} {
		for _, a := range ops[:7] {
			g.t(m, fmt.Sprintf("{{ %s %s 2 }}", fn, a))
		}
	}
	for _, fn := range []string{"add1", "add1f", "floor", "ceil", "int", "int64", "float64", "toDecimal", "atoi", "biggest"} {
		for _, a := range ops {
			g.t(m, fmt.Sprintf("{{ %s %s }}", fn, a))
		}
	}
	g.t(m,
		"{{ add 1 2 3 4 }}", "{{ add }}", "{{ mul 2 3 4 }}", "{{ max 1 5 3 }}", "{{ min 4 -2 8 }}", "{{ maxf 1.5 2 }}", "{{ minf 1 0.5 }}", "{{ addf 1.1 2.2 }}", "{{ subf 1.0 0.9 }}",
		"{{ div 7 2 }}", "{{ div -7 2 }}", "{{ mod -7 3 }}", "{{ divf 7 2 }}", "{{ divf 1 3 }}", "{{ mulf 1.1 3 }}",
		"{{ round 2.5 0 }}", "{{ round 3.14159 2 }}", "{{ round -2.5 0 }}", "{{ round 1.005 2 }}", "{{ round 1234.5 -2 }}", "{{ round \"2.675\" 2 0.5 }}", "{{ round 2.4 0 0.4 }}",
		"{{ floor 2.5 }}", "{{ ceil -2.5 }}", "{{ floor \"3.9\" }}", "{{ add 9223372036854775807 1 }}", "{{ mul 4294967296 4294967296 }}",
		"{{ int 3.99 }}", "{{ int -3.99 }}", "{{ int \"0x1F\" }}", "{{ int \"010\" }}", "{{ int64 \"1e3\" }}", "{{ atoi \"12abc\" }}", "{{ atoi \" 12\" }}", "{{ atoi \"-5\" }}",
		"{{ float64 \"1e3\" }}", "{{ float64 \"abc\" }}", "{{ toDecimal \"0777\" }}", "{{ toDecimal \"888\" }}",
		"{{ typeOf (add 1 2) }}", "{{ typeOf (addf 1 2) }}", "{{ typeOf (int 1) }}", "{{ typeOf (atoi \"1\") }}", "{{ typeOf (max 1 2) }}", "{{ typeOf (maxf 1 2) }}",
		"{{ typeOf (floor 1) }}", "{{ typeOf (round 1.5 0) }}", "{{ typeOf (div 4 2) }}", "{{ typeOf (len .Values.list) }}", "{{ typeOf (add1 .Values.num) }}",
		"{{ add .Values.big .Values.big }}", "{{ mulf .Values.big .Values.big }}", "{{ mulf 1e200 1e200 }}", "{{ divf 0 0 }}", "{{ subf 0 1e400 }}",
		"{{ add 1 .Values.flt }}", "{{ add .Values.tiny 1 }}", "{{ len (until 1000) }}", "{{ untilStep 0 1 1 }}",
	)
	g.shape(m, "randInt", "{{ randInt 5 10 }}", "shape:regex:[5-9]")
	g.shape(m, "randInt_neg", "{{ randInt -3 -1 }}", "shape:regex:-[23]")
}

func genConversion(g *corpusGen) {
	const c = "conversion"
	vals := []string{".Values.str", ".Values.num", ".Values.flt", ".Values.bool", ".Values.nul", ".Values.list", ".Values.map", "1", "1.5", "\"s\"",
		"(int 1)", "(int64 1)", "(list)", "(dict)", "(splitList \",\" \"a\")", "(until 2)", "(b64dec \"aGk=\")", ".Release", "nil", ".Values.missing"}
	for _, v := range vals {
		for _, fn := range []string{"typeOf", "kindOf", "empty", "toString"} {
			g.t(c, fmt.Sprintf("{{ %s %s }}", fn, v))
		}
	}
	g.t(c,
		"{{ typeIs \"string\" .Values.str }}", "{{ typeIs \"float64\" .Values.num }}", "{{ typeIs \"int\" 1 }}", "{{ typeIsLike \"float64\" .Values.flt }}",
		"{{ typeIsLike \"*int\" 1 }}", "{{ kindIs \"map\" .Values.map }}", "{{ kindIs \"slice\" .Values.list }}", "{{ kindIs \"invalid\" nil }}", "{{ kindIs \"float64\" .Values.num }}",
		"{{ deepEqual .Values.map .Values.map }}", "{{ deepEqual (list 1 2) (list 1 2) }}", "{{ deepEqual 1 1.0 }}", "{{ deepEqual (dict \"a\" 1) (dict \"a\" 1) }}",
		"{{ default \"d\" .Values.missing }}", "{{ default \"d\" .Values.empty }}", "{{ default \"d\" .Values.zero }}", "{{ default \"d\" .Values.fls }}",
		"{{ default \"d\" .Values.emptylist }}", "{{ default \"d\" .Values.str }}", "{{ default \"d\" }}", "{{ .Values.missing | default \"piped\" }}", "{{ default 5 0 }}",
		"{{ coalesce .Values.missing .Values.empty .Values.zero \"first\" }}", "{{ coalesce }}", "{{ coalesce nil nil }}", "{{ coalesce .Values.emptymap .Values.map }}",
		"{{ all 1 \"a\" true }}", "{{ all 1 \"\" }}", "{{ all }}", "{{ any 0 \"\" nil }}", "{{ any 0 \"x\" }}", "{{ any }}",
		"{{ empty 0.0 }}", "{{ empty \"0\" }}", "{{ empty false }}", "{{ empty (list nil) }}",
	)
}

func genDates(g *corpusGen) {
	const d = "dates"
	const t0 = "(toDate \"2006-01-02T15:04:05Z07:00\" \"2024-03-05T07:08:09+02:00\")"
	const t1 = "(toDate \"2006-01-02\" \"2023-12-31\")"
	for _, layout := range []string{"2006-01-02", "Jan 2, 2006 at 3:04pm (MST)", "Mon Monday Jan January 01 1 02 2 _2 15 3 03 04 4 05 5 PM pm", "2006-01-02T15:04:05Z07:00",
		"2006-01-02 15:04:05.000 -0700", "060102 .999999999 ,000", "Z07 -07 -07:00:00 Z0700", "__2 002", "literal"} {
		g.t(d, fmt.Sprintf("{{ %s | date %q }}", t0, layout))
		g.t(d, fmt.Sprintf("{{ dateInZone %q %s \"UTC\" }}", layout, t1))
	}
	g.t(d,
		"{{ "+t0+" }}", "{{ "+t1+" }}", "{{ "+t0+" | unixEpoch }}", "{{ date \"2006-01-02 15:04\" 0 }}", "{{ date \"2006-01-02\" 86400 }}",
		"{{ dateInZone \"2006-01-02 15:04 MST\" 1700000000 \"America/New_York\" }}", "{{ dateInZone \"15:04 MST\" "+t0+" \"Asia/Tokyo\" }}", "{{ dateInZone \"15:04\" 0 \"Nowhere/City\" }}",
		"{{ htmlDate "+t0+" }}", "{{ htmlDateInZone "+t0+" \"Asia/Kolkata\" }}", "{{ date_in_zone \"2006\" 0 \"UTC\" }}",
		"{{ "+t0+" | dateModify \"1h30m\" | date \"2006-01-02 15:04\" }}", "{{ "+t0+" | dateModify \"-48h\" | date \"2006-01-02\" }}", "{{ dateModify \"bogus\" "+t0+" | date \"2006\" }}",
		"{{ mustDateModify \"bogus\" "+t0+" }}", "{{ date_modify \"1m\" "+t1+" | date \"15:04\" }}", "{{ must_date_modify \"2h\" "+t1+" | date \"15:04\" }}",
		"{{ toDate \"2006-01-02\" \"bogus\" }}", "{{ mustToDate \"2006-01-02\" \"2024-13-01\" }}", "{{ toDate \"02/01/2006\" \"31/12/1999\" | date \"Monday\" }}",
		"{{ duration 3661 }}", "{{ duration \"90\" }}", "{{ duration 0 }}", "{{ duration 86400 }}", "{{ duration -5 }}", "{{ duration 1.5 }}",
		"{{ durationRound \"2h10m5s\" }}", "{{ durationRound \"26h\" }}", "{{ durationRound \"400h\" }}", "{{ durationRound \"9000h\" }}", "{{ durationRound 59 }}",
		"{{ durationRound \"-3m\" }}", "{{ durationRound \"bogus\" }}", "{{ durationRound 3600000000000 }}",
		"{{ mustToDuration \"1h30m\" }}", "{{ mustToDuration 90 }}", "{{ mustToDuration 1.5 }}", "{{ mustToDuration \"x\" }}",
		"{{ durationSeconds \"1m30s\" }}", "{{ durationMilliseconds \"1.5s\" }}", "{{ durationMicroseconds \"1ms\" }}", "{{ durationNanoseconds \"1us\" }}",
		"{{ durationMinutes \"90s\" }}", "{{ durationHours \"90m\" }}", "{{ durationDays \"36h\" }}", "{{ durationWeeks \"336h\" }}", "{{ durationSeconds 90 }}",
		"{{ durationSeconds .Values.flt }}", "{{ durationSeconds \"bogus\" }}", "{{ durationRoundTo \"1h17m\" \"15m\" }}", "{{ durationTruncateTo \"1h17m\" \"15m\" }}",
		"{{ durationRoundTo 100 \"1m\" }}", "{{ durationHours nil }}", "{{ mustToDuration \"\" }}", "{{ durationSeconds \"-1h\" }}",
		"{{ "+t0+" | date \"2006\" | typeOf }}", "{{ typeOf "+t0+" }}", "{{ "+t0+".Year }}", "{{ ("+t0+").UTC }}", "{{ "+t0+".Unix }}",
	)
	g.shape(d, "now_year", "{{ now | date \"2006\" }}", "shape:regex:20[2-9][0-9]")
	g.shape(d, "now_type", "{{ typeOf now }}", "shape:regex:time\\.Time")
	g.shape(d, "ago", "{{ ago "+t1+" }}", "shape:regex:[0-9hms.]+")
	g.shape(d, "unixEpoch_now", "{{ now | unixEpoch }}", "shape:regex:1[7-9][0-9]{8}")
	g.shape(d, "htmlDate_now", "{{ htmlDate now }}", "shape:regex:20[0-9]{2}-[01][0-9]-[0-3][0-9]")
	g.shape(d, "date_of_float_is_now", "{{ date \"2006\" .Values.num }}", "shape:regex:20[2-9][0-9]")
}

func genEncoding(g *corpusGen) {
	const e = "encoding"
	for _, a := range []string{"\"hello world\"", ".Values.uni", "\"\"", ".Values.num", "\"a\\x00b\\xff\""} {
		g.t(e, fmt.Sprintf("{{ b64enc %s }}", a), fmt.Sprintf("{{ b32enc %s }}", a), fmt.Sprintf("{{ %s | b64enc | b64dec }}", a), fmt.Sprintf("{{ %s | b32enc | b32dec }}", a))
	}
	g.t(e,
		"{{ b64dec \"aGVsbG8=\" }}", "{{ b64dec \"not base64!\" }}", "{{ b64dec \"aGVsbG8\" }}", "{{ b32dec \"NBSWY3DP\" }}", "{{ b32dec \"bad\" }}",
		"{{ b64dec \"/w==\" }}", "{{ b64dec \"/w==\" | len }}", "{{ b64enc (b64dec \"/+8=\") }}",
		"{{ urlquery .Values.uni }}", "{{ urlParse .Values.url }}", "{{ (urlParse .Values.url).host }}", "{{ (urlParse .Values.url).query }}", "{{ (urlParse \"rel/path?q\").path }}",
		"{{ urlParse \"::bad\" }}", "{{ urlJoin (dict \"scheme\" \"https\" \"host\" \"h:1\" \"path\" \"/p q\" \"query\" \"a=1\" \"fragment\" \"f\") }}", "{{ urlJoin (dict) }}",
		"{{ urlJoin (dict \"scheme\" \"mailto\" \"opaque\" \"a@b\") }}", "{{ urlJoin (dict \"host\" \"x\" \"userinfo\" \"u:p\") }}",
	)
}

func genHashes(g *corpusGen) {
	const h = "hashes"
	for _, a := range []string{"\"\"", "\"hello\"", ".Values.uni", ".Values.num", "(b64dec \"/w==\")"} {
		for _, fn := range []string{"sha1sum", "sha256sum", "sha512sum", "adler32sum"} {
			g.t(h, fmt.Sprintf("{{ %s %s }}", fn, a))
		}
	}
	g.t(h,
		"{{ derivePassword 1 \"long\" \"password\" \"user\" \"example.com\" }}", "{{ derivePassword 3 \"maximum\" \"secret\" \"bob\" \"site.org\" }}",
		"{{ derivePassword 1 \"medium\" \"p\" \"u\" \"s\" }}", "{{ derivePassword 1 \"short\" \"p\" \"u\" \"s\" }}", "{{ derivePassword 1 \"basic\" \"p\" \"u\" \"s\" }}",
		"{{ derivePassword 1 \"pin\" \"p\" \"u\" \"s\" }}", "{{ derivePassword 1 \"unknown\" \"p\" \"u\" \"s\" }}",
		"{{ \"secret\" | encryptAES \"key\" | decryptAES \"key\" }}", "{{ decryptAES \"key\" \"bm90IHZhbGlk\" }}", "{{ decryptAES \"key\" \"!!\" }}",
		"{{ encryptAES \"pw\" \"\" | decryptAES \"pw\" }}",
	)
	g.shape(h, "bcrypt", "{{ bcrypt \"password\" }}", "shape:regex:\\$2a\\$10\\$[./A-Za-z0-9]{53}")
	g.shape(h, "htpasswd", "{{ htpasswd \"user\" \"pass\" }}", "shape:regex:user:\\$2a\\$10\\$[./A-Za-z0-9]{53}")
	g.shape(h, "htpasswd_colon", "{{ htpasswd \"us:er\" \"pass\" }}", "shape:regex:invalid username: us:er")
	g.shape(h, "encryptAES", "{{ encryptAES \"key\" \"plaintext\" }}", "shape:regex:[A-Za-z0-9+/]{43}=")
	g.shape(h, "randBytes", "{{ randBytes 24 }}", "shape:regex:[A-Za-z0-9+/]{32}")
	g.shape(h, "randBytes_len", "{{ randBytes 10 | b64dec | len }}", "shape:regex:10")
	g.shape(h, "uuidv4", "{{ uuidv4 }}", "shape:regex:[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")
}

func genCrypto(g *corpusGen) {
	const c = "crypto"
	g.shape(c, "genPrivateKey_rsa", "{{ genPrivateKey \"rsa\" }}", "shape:pem:RSA PRIVATE KEY")
	g.shape(c, "genPrivateKey_ecdsa", "{{ genPrivateKey \"ecdsa\" }}", "shape:pem:EC PRIVATE KEY")
	g.shape(c, "genPrivateKey_ed25519", "{{ genPrivateKey \"ed25519\" }}", "shape:pem:PRIVATE KEY")
	g.shape(c, "genPrivateKey_dsa", "{{ genPrivateKey \"dsa\" }}", "shape:pem:DSA PRIVATE KEY")
	g.t(c, "{{ genPrivateKey \"bogus\" }}")
	g.shape(c, "genPrivateKey_default_rsa", "{{ genPrivateKey \"\" }}", "shape:pem:RSA PRIVATE KEY")
	g.shape(c, "genCA_cert", "{{ (genCA \"my-ca\" 365).Cert }}", "shape:pem:CERTIFICATE")
	g.shape(c, "genCA_key", "{{ (genCA \"my-ca\" 365).Key }}", "shape:pem:RSA PRIVATE KEY")
	g.shape(c, "genCA_both", "{{ $ca := genCA \"x\" 1 }}{{ $ca.Cert }}{{ $ca.Key }}", "shape:pem:CERTIFICATE;RSA PRIVATE KEY")
	g.shape(c, "genSelfSignedCert", "{{ $c := genSelfSignedCert \"foo.com\" (list \"10.0.0.1\") (list \"a.foo.com\") 365 }}{{ $c.Cert }}{{ $c.Key }}", "shape:pem:CERTIFICATE;RSA PRIVATE KEY")
	g.shape(c, "genSignedCert_chain", "{{ $ca := genCA \"ca\" 365 }}{{ $c := genSignedCert \"leaf\" (list \"127.0.0.1\") (list \"leaf.local\") 30 $ca }}{{ $c.Cert }}{{ $ca.Cert }}", "shape:certchain")
	g.shape(c, "genSignedCert_key", "{{ $ca := genCA \"ca\" 365 }}{{ (genSignedCert \"leaf\" nil nil 30 $ca).Key }}", "shape:pem:RSA PRIVATE KEY")
	g.shape(c, "genCAWithKey", "{{ $k := genPrivateKey \"ecdsa\" }}{{ $ca := genCAWithKey \"ca\" 10 $k }}{{ $ca.Cert }}{{ $ca.Key }}", "shape:pem:CERTIFICATE;EC PRIVATE KEY")
	g.shape(c, "genSignedCertWithKey_chain", "{{ $ca := genCA \"ca\" 365 }}{{ $k := genPrivateKey \"ed25519\" }}{{ $c := genSignedCertWithKey \"l\" nil nil 3 $ca $k }}{{ $c.Cert }}{{ $ca.Cert }}", "shape:certchain")
	g.shape(c, "genSelfSignedCertWithKey", "{{ $k := genPrivateKey \"rsa\" }}{{ (genSelfSignedCertWithKey \"x\" nil nil 3 $k).Cert }}", "shape:pem:CERTIFICATE")
	g.shape(c, "buildCustomCert_roundtrip", "{{ $ca := genCA \"ca\" 365 }}{{ $b := buildCustomCert ($ca.Cert | b64enc) ($ca.Key | b64enc) }}{{ eq $b.Cert $ca.Cert }}", "shape:regex:true")
	g.t(c, "{{ buildCustomCert \"bad\" \"bad\" }}", "{{ genCAWithKey \"ca\" 1 \"not a key\" }}", "{{ typeOf (genCA \"x\" 1) }}")
}

func genSemver(g *corpusGen) {
	const s = "semver"
	for _, pair := range [][2]string{
		{">=1.19.0-0", "v1.29.3-gke.1200"}, {">=1.19.0", "v1.29.3-gke.1200"}, {"^1.2.3", "1.9.0"}, {"^1.2.3", "2.0.0"}, {"~1.2.3", "1.2.9"}, {"~1.2.3", "1.3.0"},
		{"1.x", "1.5.0"}, {"*", "0.0.1"}, {">1.0 <2.0", "1.5.0"}, {">1.0, <2.0", "2.0.0"}, {"<1.0 || >=3.0", "3.1.0"}, {"=1.2.3", "1.2.3"}, {"!=1.2.3", "1.2.3"},
		{"1.2.3 - 1.4.5", "1.4.0"}, {">= 1.2", "1.2.0-beta"}, {"^0.2.3", "0.2.9"}, {"^0.2.3", "0.3.0"}, {"~1", "1.9.9"}, {">=1.0.0-alpha", "1.0.0-beta"},
		{"<=1.2.3", "1.2.3+build"}, {">1.2", "v1.3"}, {"1.2.3", "1.2.3"}, {"bad constraint", "1.0.0"}, {">=1.0.0", "not-a-version"}, {"^1.x", "1.2.0"},
		{">=v1.20", "1.21.0"}, {"~> 1.2", "1.2.5"}, {"<2.0.0-0", "1.9.9-rc.1"}, {"*", "1.0.0-rc1"}, {">0.0.0-0", "1.0.0-rc1"},
	} {
		g.t(s, fmt.Sprintf("{{ semverCompare %q %q }}", pair[0], pair[1]))
	}
	for _, v := range []string{"1.2.3", "v1.2.3-rc.1+build.5", "1.2", "1", "01.2.3", "1.2.3.4", "v1.29.3-gke.1200", "x"} {
		g.t(s, fmt.Sprintf("{{ $v := semver %q }}{{ $v.Major }}.{{ $v.Minor }}.{{ $v.Patch }}|{{ $v.Prerelease }}|{{ $v.Metadata }}|{{ $v.Original }}|{{ $v }}", v))
	}
	g.t(s, "{{ (semver \"1.2.3\").Compare (semver \"1.3.0\") }}", "{{ (semver \"1.2.3\").LessThan (semver \"1.3.0\") }}", "{{ (semver \"1.2.3\").GreaterThan (semver \"1.3.0\") }}",
		"{{ (semver \"1.2.3\").Equal (semver \"v1.2.3\") }}", "{{ semverCompare \">=1.20\" .Values.ver }}", "{{ typeOf (semver \"1.0.0\") }}", "{{ (semver \"1.2.3\").IncMinor }}")
}

func genRegex(g *corpusGen) {
	const r = "regex"
	g.t(r,
		"{{ regexMatch \"^[a-z]+$\" \"hello\" }}", "{{ regexMatch \"^[a-z]+$\" \"Hello\" }}", "{{ regexMatch \"(?i)^h\" \"Hello\" }}", "{{ regexMatch \"[\" \"x\" }}",
		"{{ regexFind \"[0-9]+\" \"abc123def456\" }}", "{{ regexFind \"z\" \"abc\" }}", "{{ regexFindAll \"[0-9]\" \"a1b2c3\" -1 }}", "{{ regexFindAll \"[0-9]\" \"a1b2c3\" 2 }}",
		"{{ regexFindAll \"[0-9]\" \"a1b2c3\" 0 }}", "{{ regexFindAll \"x*\" \"abc\" -1 }}", "{{ regexReplaceAll \"a(x*)b\" \"-ab-axxb-\" \"${1}W\" }}",
		"{{ regexReplaceAll \"a(x*)b\" \"-ab-axxb-\" \"$1W\" }}", "{{ regexReplaceAllLiteral \"a(x*)b\" \"-ab-axxb-\" \"${1}\" }}", "{{ regexReplaceAll \"(?P<n>\\\\w+)@(\\\\w+)\" \"me@host\" \"$2 at ${n}\" }}",
		"{{ regexSplit \"z+\" \"pizza\" -1 }}", "{{ regexSplit \"z+\" \"pizza\" 1 }}", "{{ regexSplit \"\" \"abc\" -1 }}", "{{ regexSplit \",\" \"\" -1 }}",
		"{{ regexQuoteMeta \"1.5-2.0?*[x]\" }}", "{{ regexMatch \"\\\\d{3}\" \"12\" }}", "{{ regexFind \"\\\\p{Greek}+\" \"abc αβγ\" }}", "{{ regexMatch \"(a+)+$\" \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab\" }}",
		"{{ regexReplaceAll \"\\\\s+\" .Values.spaced \"_\" }}", "{{ regexFind \"é.\" .Values.uni }}", "{{ regexMatch \"(?=x)\" \"x\" }}", "{{ regexMatch \"\\\\1\" \"x\" }}",
		"{{ mustRegexFind \"[\" \"x\" }}", "{{ mustRegexFindAll \"a\" \"aaa\" -1 }}", "{{ mustRegexReplaceAll \"(\" \"x\" \"y\" }}", "{{ mustRegexReplaceAllLiteral \"a\" \"aa\" \"$0\" }}",
		"{{ mustRegexSplit \"[\" \"x\" -1 }}", "{{ mustRegexMatch \"a\" \"a\" }}", "{{ regexMatch \"^\" .Values.num }}", "{{ regexReplaceAll \"(?m)^\" \"a\\nb\" \"> \" }}",
	)
}

func genSerialization(g *corpusGen) {
	const s = "serialization"
	for _, v := range []string{".Values", ".Values.str", ".Values.num", ".Values.big", ".Values.huge", ".Values.tiny", ".Values.flt", ".Values.list", ".Values.map",
		".Values.nested", ".Values.mixed", ".Values.nul", ".Values.multi", ".Values.uni", ".Values.emptymap", ".Values.emptylist", "(list)", "(dict)", "nil",
		"(dict \"yes\" \"no\" \"on\" \"1.0\" \"k\" \"~\" \"d\" \"2024-01-01\" \"e\" \"\" \"n\" \"null\" \"t\" \"true\")", "(int 3)", "1.5", "\"a: b\"", "\"- x\"", "\"#c\"", "\"x\\n\"",
		"(list (dict \"a\" (list 1 (dict \"b\" 2))))", "(b64dec \"aGk=\")", "(dict \"html\" \"<a&b>\")", "(dict \"long\" (repeat 30 \"word \"))", "(dict \"key with space\" 1 \"k:\" 2)",
		"(toDate \"2006-01-02\" \"2024-01-02\")", "(semver \"1.2.3\")", ".Release"} {
		for _, fn := range []string{"toYaml", "toJson", "toPrettyJson", "toRawJson", "toToml"} {
			g.t(s, fmt.Sprintf("{{ %s %s }}", fn, v))
		}
	}
	for _, str := range []string{"", " ", "0123", "1e3", "1.0", "true", "False", "null", "~", "yes", "NO", "on", "y", "n", ":", "a:b", "a: b", "- a", "-", "#x", "x #y", "[a]", "{a}", "*a", "&a", "!t", "%p", "@a", "`a", "'q'", "\"dq\"", "a\nb", "a\n", "\n", "a\tb", " lead", "trail ", "é", "\u2028", "\x7f", "2024-01-02", "12:30", "0x1F", "0o17", ".inf", "-.5", "+1", "1_000", "=", "<<", "?", "|", ">", "a,b", "very long line " + strings.Repeat("with many words ", 8)} {
		g.t(s, fmt.Sprintf("{{ toYaml (dict \"k\" %q) }}", str))
		g.t(s, fmt.Sprintf("{{ toYaml (list %q) }}", str))
	}
	g.t(s,
		"{{ toYamlPretty .Values.map }}", "{{ toYamlPretty (list (dict \"a\" (list 1 2))) }}", "{{ mustToYaml .Values.map }}", "{{ mustToJson .Values.list }}", "{{ mustToPrettyJson .Values.map }}",
		"{{ mustToRawJson (dict \"h\" \"<>\") }}", "{{ mustToToml .Values.map }}", "{{ toToml (list 1 2) }}", "{{ mustToToml (list 1 2) }}",
		"{{ fromYaml \"a: 1\\nb: [x, y]\\nc: yes\\nd: 1.0\\ne: 0x1F\\nf: ~\" }}", "{{ (fromYaml \"a: 1\").a | typeOf }}", "{{ fromYaml \"- 1\\n- 2\" }}", "{{ fromYaml \"a: [\" }}",
		"{{ fromYaml \"\" }}", "{{ fromYamlArray \"- 1\\n- a\" }}", "{{ fromYamlArray \"a: 1\" }}", "{{ fromYamlArray \"[\" }}", "{{ fromYaml \"a: &x 1\\nb: *x\" }}",
		"{{ fromYaml \"base: &b {x: 1}\\nd:\\n  <<: *b\\n  y: 2\" }}", "{{ fromYaml \"a: 12345678901234567890\" }}", "{{ fromYaml \"a: 2024-01-01\" }}", "{{ (fromYaml \"a: 2024-01-01\").a | typeOf }}",
		"{{ fromJson \"{\\\"a\\\":1,\\\"b\\\":[true,null]}\" }}", "{{ fromJson \"[1]\" }}", "{{ fromJson \"{bad\" }}", "{{ fromJsonArray \"[1,\\\"a\\\",{\\\"b\\\":2}]\" }}",
		"{{ fromJsonArray \"{}\" }}", "{{ fromJson \"\" }}", "{{ mustFromJson \"[1]\" }}", "{{ (fromJson \"{\\\"n\\\":10000000}\").n }}",
		"{{ fromToml \"a = 1\\n[b]\\nc = \\\"x\\\"\" }}", "{{ (fromToml \"a = 1\").a | typeOf }}", "{{ fromToml \"a = \" }}", "{{ fromToml \"d = 1979-05-27T07:32:00Z\" }}",
		"{{ .Values | toYaml | fromYaml | toJson }}", "{{ .Values.map | toJson | fromJson | toYaml }}", "{{ toYaml .Values | indent 2 }}", "{{ toYaml .Values.map | nindent 4 }}",
	)
}

func genHelm(g *corpusGen) {
	const h = "helm"
	helpers := "{{- define \"name\" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end -}}\n" +
		"{{- define \"labels\" -}}\napp: {{ include \"name\" . }}\nver: {{ .Chart.Version | quote }}\n{{- end -}}\n" +
		"{{- define \"echo\" -}}{{ . }}{{- end -}}\n{{- define \"ctx\" -}}{{ toJson . }}{{- end -}}\n"
	for i, tpl := range []string{
		"{{ include \"name\" . }}", "labels:\n  {{- include \"labels\" . | nindent 2 }}", "{{ include \"echo\" \"x\" | upper }}", "{{ include \"echo\" nil }}", "{{ include \"echo\" .Values.list }}",
		"{{ include \"ctx\" (dict \"a\" 1) }}", "{{ include \"nope\" . }}", "{{ include \"echo\" }}", "{{ include }}", "{{ include 1 . }}", "{{ template \"echo\" \"t\" }}",
		"{{ tpl \"{{ .Values.str }}\" . }}", "{{ tpl .Values.tplstr . }}", "{{ tpl \"{{ include \\\"name\\\" . }}\" . }}", "{{ tpl \"{{ define \\\"inner\\\" }}in{{ end }}{{ include \\\"inner\\\" . }}\" . }}",
		"{{ tpl \"{{ .missing }}\" . }}", "{{ tpl \"{{ .Values.missing.x }}\" . }}", "{{ tpl \"{{ if }}\" . }}", "{{ tpl \"plain\" nil }}", "{{ tpl \"{{ . }}\" 3 }}",
		"{{ tpl \"{{ tpl \\\"{{ .Values.str }}\\\" . }}\" . }}", "{{ tpl \"{{ template \\\"name\\\" . }}\" . }}", "{{ tpl 1 . }}", "{{ tpl \"{{ fail \\\"in tpl\\\" }}\" . }}",
		"{{ required \"need str\" .Values.str }}", "{{ required \"need list\" .Values.emptylist }}", "{{ .Values.missing | required \"piped required\" }}",
		"{{ fail \"stop here\" }}", "{{ fail \"\" }}", "{{ fail 3 }}", "{{ lookup \"v1\" \"Pod\" \"default\" \"x\" }}", "{{ lookup \"v1\" \"Pod\" \"\" \"\" | len }}",
		"{{ getHostByName \"localhost\" }}", "{{ (lookup \"v1\" \"Secret\" \"ns\" \"s\").data }}", "{{ typeOf (lookup \"v1\" \"Pod\" \"\" \"\") }}",
		"{{ include \"labels\" . | indent 4 }}", "{{ tpl (toYaml .Values.tplmap) . }}", "{{ $r := include \"echo\" 5 }}{{ typeOf $r }}",
		"{{ tpl \"{{ .Template.Name }}\" . }}", "{{ tpl \"{{ $.Values.str }}\" . }}", "{{ tpl \"{{ .Values.str }}\" (dict \"Values\" (dict \"str\" \"custom\")) }}",
	} {
		g.tf(h, fmt.Sprintf("%03d_%s", i, slug(tpl)), map[string]string{mainTemplate: tpl, "_helpers.tpl": helpers},
			stdValues+"tplstr: \"{{ .Release.Namespace }}/{{ .Values.num }}\"\ntplmap: {a: \"{{ .Values.str }}\"}\n")
	}
}

func genPaths(g *corpusGen) {
	const p = "paths"
	for _, a := range []string{".Values.path", "\"\"", "\"/\"", "\"a/b/../c/./d/\"", "\"rel.txt\"", "\"//x//y\"", "\"C:\\\\dir\\\\f.txt\""} {
		for _, fn := range []string{"base", "dir", "clean", "ext", "isAbs", "osBase", "osDir", "osClean", "osExt", "osIsAbs"} {
			g.t(p, fmt.Sprintf("{{ %s %s }}", fn, a))
		}
	}
}

func genEdge(g *corpusGen) {
	const e = "edge"
	deep := ""
	for i := 1; i < 50; i++ {
		deep += fmt.Sprintf("{l%d: ", i)
	}
	deep += "bottom" + repeatStr("}", 49)
	g.tv(e, "deep_values", "{{ .Values.l0.l1.l2.l3.l4.l5.l6.l7.l8.l9.l10 | toJson | len }}|{{ toJson .Values | len }}", "l0: "+deep+"\n")
	g.tv(e, "deep_if_nesting", repeatStr("{{ if true }}", 60)+"x"+repeatStr("{{ end }}", 60), "")
	g.tv(e, "deep_parens", "{{ "+repeatStr("(", 40)+"1"+repeatStr(")", 40)+" }}", "")
	g.tv(e, "long_pipeline", "{{ \"a\""+repeatStr(" | upper | lower", 50)+" }}", "")
	g.tv(e, "yaml11_booleans", "{{ range $k, $v := .Values }}{{ $k }}={{ $v }}({{ typeOf $v }}) {{ end }}", "a: yes\nb: No\nc: on\nd: OFF\ne: y\nf: n\ng: true\nh: True\ni: \"yes\"\n")
	g.tv(e, "yaml_numbers", "{{ range $k, $v := .Values }}{{ $k }}={{ $v }}({{ typeOf $v }}) {{ end }}",
		"a: 1\nb: 1.0\nc: 1e3\nd: 0x1F\ne: 0o17\nf: 017\ng: .5\nh: -0\ni: +12\nj: 1_000\nk: .inf\nl: -.inf\nm: .nan\nn2: 9007199254740993\no: 1e400\np: 123456789012\n")
	g.tv(e, "yaml_strings", "{{ range $k, $v := .Values }}{{ $k }}={{ printf \"%q\" $v }} {{ end }}",
		"a: 'single ''q'''\nb: \"esc\\t\\u00e9\"\nc: |\n  block\n  text\nd: >\n  folded\n  text\ne: plain text # comment\nf: ~\ng: 2024-01-02\nh: 12:30:00\ni: \"\"\n")
	g.tv(e, "yaml_merge_keys", "{{ toJson .Values }}", "base: &b {x: 1, y: 2}\nd:\n  <<: *b\n  y: 3\n")
	g.tv(e, "yaml_anchor_list", "{{ toJson .Values }}", "a: &l [1, 2]\nb: *l\n")
	g.tv(e, "yaml_nonstring_keys", "{{ toJson .Values }}", "1: one\ntrue: t\n1.5: f\nnull: n\n")
	g.tv(e, "yaml_empty_doc", "{{ toJson .Values }}", "")
	g.tv(e, "yaml_comment_only", "{{ toJson .Values }}", "# nothing\n")
	g.tv(e, "yaml_null_entry", "{{ toJson .Values }}|{{ hasKey .Values \"a\" }}", "a: null\nb: ~\nc:\n")
	g.tv(e, "yaml_nested_list_of_maps", "{{ range .Values.items }}{{ .name }}={{ .v }};{{ end }}", "items:\n- name: a\n  v: 1\n- name: b\n  v: [x]\n")
	g.tv(e, "unicode_keys", "{{ index .Values \"ключ\" }}|{{ .Values.emoji }}|{{ len .Values.emoji }}|{{ upper .Values.emoji }}", "ключ: значение\nemoji: \"😀x\"\n")
	g.tv(e, "huge_string_repeat", "{{ repeat 100000 \"ab\" | len }}", "")
	g.tv(e, "huge_list", "{{ len (until 100000) }}", "")
	g.tv(e, "huge_int_literal_float", "{{ 1e300 }} {{ 1.7976931348623157e308 }} {{ 5e-324 }}", "")
	g.tv(e, "int_overflow_literal", "{{ 18446744073709551615 }}", "")
	g.tv(e, "int_overflow_literal2", "{{ 18446744073709551616 }}", "")
	g.tv(e, "neg_int_min", "{{ -9223372036854775808 }}", "")
	g.tv(e, "float_keys_print", "{{ .Values.a }} {{ .Values.b }} {{ .Values.c }} {{ .Values.d }} {{ .Values.e }}", "a: 100000\nb: 1000000\nc: 1.0e+21\nd: 123456789012345678\ne: 0.1\n")
	g.tv(e, "missing_key_zero_print", "[{{ .Values.a }}][{{ .Values.a.b }}]", "a: {}\n")
	g.tv(e, "missing_in_map_vs_nil", "{{ printf \"%v|%v\" .Values.a.missing .Values.a.nul }}", "a: {nul: null}\n")
	g.tv(e, "no_value_literal_removed", "{{ \"<no value>\" }}|{{ print \"x<no value>y\" }}", "")
	g.tv(e, "map_of_nil_print", "{{ .Values }}", "a: null\nb: [null]\n")
	g.tv(e, "crlf_template", "a\r\n{{ \"b\" }}\r\n", "")
	g.tv(e, "nul_byte_in_template", "a\x00b{{ \"c\" }}", "")
	g.tv(e, "invalid_utf8_output", "{{ substr 0 1 \"é\" }}", "")
	g.tv(e, "tabs_and_trims", "\t{{- \"a\" -}}\t\n\t{{ \"b\" }}", "")
	g.tv(e, "delims_in_strings", "{{ \"{{ not an action }}\" }}", "")
	g.tv(e, "method_on_values_map", "{{ .Values.AsMap }}", "a: 1\n")
	g.tv(e, "capital_keys", "{{ .Values.Key }} {{ .Values.key }}", "Key: upper\nkey: lower\n")
	g.tv(e, "dash_keys_index", "{{ index .Values \"my-key\" }}", "my-key: dashed\n")
	g.tv(e, "numeric_key_index", "{{ index .Values \"1\" }}", "1: one\n")
	g.tv(e, "list_of_lists", "{{ index .Values.m 1 0 }} {{ .Values.m }}", "m: [[1, 2], [3, 4]]\n")
	g.tv(e, "bool_string_compare", "{{ eq .Values.a \"true\" }}", "a: \"true\"\n")
	g.tv(e, "float_eq_int_literal", "{{ eq .Values.a 1 }}", "a: 1\n")
	g.tv(e, "set_on_values_then_toYaml", "{{ $_ := set .Values \"z\" (dict \"y\" 1) }}{{ toYaml .Values }}", "a: 1\n")
	g.tv(e, "range_modify_map", "{{ range $k, $v := .Values.m }}{{ $_ := set $.Values.m \"zz\" 1 }}{{ $k }}{{ end }}", "m: {a: 1, b: 2}\n")
	g.tv(e, "very_long_line", "{{ repeat 5000 \"x\" }}", "")
	g.tv(e, "unicode_whitespace_trim", "{{ trim \"\\u00a0\\u2003x\\u3000\" }}|{{ nospace \"a\\u00a0b\" }}", "")
	g.tv(e, "printf_width_unicode", "{{ printf \"%5s|%-5s|\" \"é\" \"✓\" }}", "")
	g.tv(e, "title_unicode", "{{ title \"ǆemal\" }} {{ upper \"ǆ\" }} {{ swapcase \"ǅ\" }}", "")
	g.tv(e, "len_bytes_vs_runes", "{{ len \"日本語\" }} {{ trunc 2 \"日本語\" }} {{ substr 0 3 \"日本語\" }}", "")
	g.tf(e, "include_depth_100", map[string]string{mainTemplate: "{{ include \"d\" 100 | len }}",
		"_d.tpl": "{{ define \"d\" }}{{ if gt . 0 }}x{{ include \"d\" (sub . 1) }}{{ end }}{{ end }}"}, "")
	g.tv(e, "yaml_infinity", "{{ .Values }}", "a: .inf\n")
	g.tv(e, "yaml_nan", "{{ .Values }}", "a: .nan\n")
	g.tv(e, "yaml_bad_syntax", "{{ .Values }}", "a: [1, 2\n")
	g.tv(e, "yaml_alias_bomb", "{{ .Values }}", "a: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\ng: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\nh: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]\n")
	g.tv(e, "yaml_top_level_list", "{{ .Values }}", "- a\n- b\n")
	g.tv(e, "yaml_top_level_scalar", "{{ .Values }}", "just a string\n")
	g.tv(e, "yaml_duplicate_key", "{{ .Values }}", "a: 1\na: 2\n")
}

func repeatStr(s string, n int) string {
	out := ""
	for i := 0; i < n; i++ {
		out += s
	}
	return out
}
