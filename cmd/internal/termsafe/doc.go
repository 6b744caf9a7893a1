// Package termsafe prints names that bpx did not choose (object names of a
// package, paths from the command line or a URL, directory entries, symbol
// names) and the messages that embed them on a terminal, so that a hostile
// name cannot drive it: set the window title, clear the screen, move the
// cursor, start a new line that passes for other output, or reorder what
// follows with a bidirectional control.
//
// The bpx command prints names through it in its text output (ls, diff,
// verify, info, table) and in every diagnostic. Its JSON output stays exact
// (encoding/json escapes C0 controls and U+2028/U+2029 itself, but writes
// DEL, C1 controls and bidi controls as they are, and a file name that is
// not valid UTF-8 with U+FFFD; a package cannot hold such a name), and so
// does the output made for scripts with -0 (ls, diff).
//
// # Names
//
// Name prints a name as it is when it is valid UTF-8, every rune of it is
// printable as strconv.IsPrint says (letters, marks, numbers, punctuation,
// symbols and the ASCII space) and it does not start with a double quote.
// Any other name is printed whole as a Go quoted string, strconv.Quote:
// "\x1b]0;x\a", "a\nb", "\u202eexe.txt", "caf\xe9". Printable non-ASCII
// runes stay as they are, so names in other scripts remain readable, quoted
// or not. A printed name that starts with a double quote is therefore always
// a quoted string, which strconv.Unquote turns back into the exact bytes,
// and any other printed name is the name itself: the two cannot be mistaken
// for one another.
//
// # Messages
//
// Message escapes a message (an error, most often) that may embed names,
// without quoting it: each rune that is not printable and each byte that is
// not valid UTF-8 is replaced in place by its Go escape (\x1b, \n, \u202e,
// \xff), and the rest is left as it is. A message is printed as one line.
// Unlike Name, this cannot be undone: a backslash is not escaped, so a name
// holding the four characters \x1b reads like one holding ESC. Messages are
// for people; scripts have the exit status and --json.
//
// Lines and Writer do the same for text of many lines that the program lays
// out itself but that may embed names (a report such as bpx info's): they
// keep line feeds and tabs, and escape everything else that Message escapes.
//
// # Security
//
// The output of Name and Message holds no C0 control (bytes 0x00-0x1F), no
// DEL (0x7F), no C1 control (U+0080-U+009F, the 8-bit CSI and OSC
// included), no invalid UTF-8, no format character (category Cf: the
// bidirectional controls U+202A-U+202E and U+2066-U+2069, zero-width
// joiners, U+FEFF), no line or paragraph separator (U+2028, U+2029) and no
// space other than the ASCII space; the output of Lines and Writer none of
// these but line feeds and tabs. What is printable passes: characters that
// look like others (a Cyrillic "а" for a Latin "a") are not flagged, and
// wide or combining characters keep their width.
//
// The work is one pass over the bytes (ASCII needs no decoding) and the
// output is at most 10 bytes per input byte (\U0010ffff for a 4-byte rune
// is 10 bytes for 4), so a name or message of n bytes costs O(n) time and
// memory.
package termsafe
