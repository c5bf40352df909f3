package temporal

import "fmt"

// Fields are an instant's calendar fields in a zone.
type Fields struct {
	Year, Month, Day     int
	Hour, Minute, Second int
	Nanosecond           int
	Weekday              int // ISO 8601: 1 is Monday, 7 is Sunday
	DayOfYear            int // 1 to 366
	Offset               int // seconds east of UTC
}

// OffsetString is the offset as "+02:00", or "+00:09:21" when it has
// seconds, as TC39 Temporal writes it.
func (f Fields) OffsetString() string {
	sign, off := '+', f.Offset
	if off < 0 {
		sign, off = '-', -off
	}
	if off%60 != 0 {
		return fmt.Sprintf("%c%02d:%02d:%02d", sign, off/3600, off/60%60, off%60)
	}
	return fmt.Sprintf("%c%02d:%02d", sign, off/3600, off/60%60)
}

// Fields returns t's calendar fields in the zone zoneID.
func (t Instant) Fields(zoneID string) (Fields, error) {
	z, err := LoadZone(zoneID)
	if err != nil {
		return Fields{}, err
	}
	lt := t.Time().In(z.Location())
	_, off := lt.Zone()
	wd := int(lt.Weekday())
	if wd == 0 {
		wd = 7
	}
	return Fields{
		Year: lt.Year(), Month: int(lt.Month()), Day: lt.Day(),
		Hour: lt.Hour(), Minute: lt.Minute(), Second: lt.Second(), Nanosecond: lt.Nanosecond(),
		Weekday: wd, DayOfYear: lt.YearDay(), Offset: off,
	}, nil
}
