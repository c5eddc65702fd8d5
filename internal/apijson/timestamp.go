package apijson

import (
	"errors"
	"time"
)

// ParseTime parses an RFC 3339 date-time (RFC 3339 §5.6) in every form the
// grammar allows: "T" and "Z" in either case, a fraction of any length
// (digits past the ninth are dropped, as time.Parse does), a numeric offset
// including "-00:00", and the leap second ":60". Go's time.Time has no leap
// seconds, so hh:mm:60 becomes the first instant of the next minute, the
// same instant as hh:(mm+1):00 (docs/contract.md, "Timestamps"). A zero
// offset ("Z", "+00:00", "-00:00") gives a UTC time; any other offset a
// fixed zone without a name.
//
// Its errors say what is wrong and never quote s, which may be anything a
// broken server put where a timestamp belongs.
func ParseTime[S ~string | ~[]byte](s S) (time.Time, error) {
	// 2006-01-02T15:04:05 then an optional fraction, then Z or ±hh:mm.
	if len(s) < len("2006-01-02T15:04:05Z") || len(s) > maxTimestampLen {
		return time.Time{}, errTimestampForm
	}
	year, ok1 := digitsAt(s, 0, 4)
	month, ok2 := digitsAt(s, 5, 2)
	day, ok3 := digitsAt(s, 8, 2)
	hour, ok4 := digitsAt(s, 11, 2)
	minute, ok5 := digitsAt(s, 14, 2)
	second, ok6 := digitsAt(s, 17, 2)
	if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 || !ok6 ||
		s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't') || s[13] != ':' || s[16] != ':' {
		return time.Time{}, errTimestampForm
	}
	if month < 1 || month > 12 || day < 1 || day > daysIn(time.Month(month), year) ||
		hour > 23 || minute > 59 || second > 60 {
		return time.Time{}, errTimestampRange
	}
	rest := s[19:]
	nanos := 0
	if rest[0] == '.' {
		n := 1
		for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
			if n <= 9 {
				nanos = nanos*10 + int(rest[n]-'0')
			}
			n++
		}
		if n == 1 {
			return time.Time{}, errTimestampForm // a '.' needs at least one digit
		}
		for i := n; i <= 9; i++ {
			nanos *= 10
		}
		rest = rest[n:]
	}
	loc, ok := offset(rest)
	if !ok {
		return time.Time{}, errTimestampForm
	}
	leap := 0
	if second == 60 {
		second, leap = 59, 1
	}
	t := time.Date(year, time.Month(month), day, hour, minute, second, nanos, loc)
	return t.Add(time.Duration(leap) * time.Second), nil
}

// maxTimestampLen bounds what ParseTime reads: a date-time with a
// nanosecond fraction is 35 bytes; the bound leaves room for long
// fractions and stops a megabyte of digits early.
const maxTimestampLen = 64

var (
	errTimestampForm  = errors.New("not an RFC 3339 date-time (such as 2026-11-21T09:30:00Z)")
	errTimestampRange = errors.New("an RFC 3339 date-time with a field out of range")
)

// offset reads the time-offset of a date-time: Z in either case, or
// ±hh:mm with hh ≤ 23 and mm ≤ 59.
func offset[S ~string | ~[]byte](s S) (*time.Location, bool) {
	if len(s) == 1 && (s[0] == 'Z' || s[0] == 'z') {
		return time.UTC, true
	}
	if len(s) != 6 || (s[0] != '+' && s[0] != '-') || s[3] != ':' {
		return nil, false
	}
	h, ok1 := digitsAt(s, 1, 2)
	m, ok2 := digitsAt(s, 4, 2)
	if !ok1 || !ok2 || h > 23 || m > 59 {
		return nil, false
	}
	secs := (h*60 + m) * 60
	if secs == 0 {
		return time.UTC, true
	}
	if s[0] == '-' {
		secs = -secs
	}
	return time.FixedZone("", secs), true
}

// digitsAt reads n decimal digits of s starting at i.
func digitsAt[S ~string | ~[]byte](s S, i, n int) (int, bool) {
	v := 0
	for j := i; j < i+n; j++ {
		c := s[j]
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	return v, true
}

// daysIn is the number of days of month m in year y (proleptic Gregorian).
func daysIn(m time.Month, y int) int {
	return time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}
