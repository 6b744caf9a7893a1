package main

import (
	"bufio"
	"flag"
	"fmt"

	"github.com/gobpx/bpx"
	"github.com/gobpx/bpx/cmd/internal/termsafe"
	bpxstrings "github.com/gobpx/bpx/strings"
	"github.com/gobpx/bpx/table"
)

// tableFlags are the flags of "bpx table".
type tableFlags struct {
	section string
	json    bool
}

func setupTable(fs *flag.FlagSet) func(*env, []string) int {
	var f tableFlags
	fs.StringVar(&f.section, "s", "", "print section `N` (counting from 0; default: the first of type 0xFD)")
	fs.BoolVar(&f.json, "json", false, "print a JSON array with one object per row, keyed by column name")
	return f.run
}

func (f *tableFlags) run(e *env, pos []string) int {
	if len(pos) != 1 {
		return e.usageError("want one FILE")
	}
	file := pos[0]
	r, err := openContainer(file)
	if err != nil {
		return e.fail(err)
	}
	defer r.Close()

	s, err := sectionOrFirst(r.Reader, file, f.section, bpx.SectionTypeTable, "table")
	if err != nil {
		return e.fail(err)
	}
	if s.Type != bpx.SectionTypeTable {
		return e.fail(fmt.Errorf("%s: section %d has type 0x%02X, not a table (0xFD)", file, s.Index, s.Type))
	}
	// Names are in the first strings section, as the reference's
	// containers have it.
	strs := &bpxstrings.Table{}
	if ss := r.FindSection(bpx.SectionTypeStrings); ss != nil {
		data, err := ss.Data()
		if err != nil {
			return e.fail(err)
		}
		strs = bpxstrings.NewTable(data)
	}
	data, err := s.Data()
	if err != nil {
		return e.fail(err)
	}
	tb, err := table.Decode(data, strs)
	if err != nil {
		return e.fail(fmt.Errorf("%s: section %d: %w", file, s.Index, err))
	}
	if f.json {
		err = tb.WriteJSON(e.Stdout)
	} else {
		err = writeTableText(e, tb)
	}
	if err != nil {
		return e.fail(err)
	}
	return exitOK
}

// writeTableText writes a line of column names, then one line per live
// row, the cells separated by tabs: names and strings as termsafe.Name
// prints them (Go-quoted when they hold a tab, a line break or any other
// character that is not printable, or start with a double quote), other
// values as in JSON.
func writeTableText(e *env, tb *table.Table) error {
	out := bufio.NewWriterSize(e.Stdout, 64<<10)
	var line []byte
	for i, c := range tb.Columns {
		if i > 0 {
			line = append(line, '\t')
		}
		line = termsafe.AppendName(line, c.Name)
	}
	line = append(line, '\n')
	for _, r := range tb.Rows() {
		if _, err := out.Write(line); err != nil {
			return err
		}
		line = line[:0]
		for i, c := range tb.Columns {
			if i > 0 {
				line = append(line, '\t')
			}
			if c.Type == table.Varchar {
				line = termsafe.AppendName(line, r.ValueAt(i).(string))
			} else {
				line = r.AppendCellJSON(line, i)
			}
		}
		line = append(line, '\n')
	}
	if _, err := out.Write(line); err != nil {
		return err
	}
	return out.Flush()
}
